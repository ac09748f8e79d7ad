/**
 * The Pinterest module: a board of a Pinterest account, signed in with the operator's Pinterest app
 * (OAuth, the app's id and secret by HTTP Basic on the token endpoint), pinning through API v5
 * (`POST /v5/pins`). Each board is an identity of the sign-in: `--account` names the board (its id or
 * its name), and a channel publishes to one board. Pinterest has no idempotency key and no comment API.
 */
import type { ConnectorModule } from '../module.js';

export const pinterest: ConnectorModule<'pinterest'> = {
  kind: 'pinterest',
  channelType: 'Pinterest',
  displayName: 'Pinterest',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://api.pinterest.com',
        help: "Pinterest's API root (https://api-sandbox.pinterest.com for an app with Trial access; a stand-in for tests)",
      },
    ],
    verify: async (input) => (await import('./pinterest-account.js')).verifyPinterest(input),
  },
  describe: { account: 'board name', address: 'Pinterest API root' },
  load: async () => (await import('./pinterest-connector.js')).openPinterest,
  app: {
    name: 'PINTEREST',
    registerAt: 'https://developers.pinterest.com/apps/',
    authRoot: 'https://www.pinterest.com',
    apiRoot: 'https://api.pinterest.com',
  },
  oauth: async () => (await import('./pinterest-oauth.js')).pinterestOAuth,
};
