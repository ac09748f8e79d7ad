/**
 * The X module: an account signed in with OAuth 2.0 (PKCE) through the operator's app, posting through
 * the v2 API (`POST /2/tweets`, the dedicated media upload endpoints). X has no idempotency key: a post
 * whose answer was lost is looked for among the account's recent posts, never sent again blindly.
 */
import type { ConnectorModule } from '../module.js';

export const x: ConnectorModule<'x'> = {
  kind: 'x',
  channelType: 'X/Twitter',
  displayName: 'X',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://api.x.com',
        help: "X's API address (a stand-in or a proxy)",
      },
    ],
    verify: async ({ endpoint, tokens, secret, userAgent, timeoutMs }) =>
      (await import('./x-account.js')).verifyX({
        apiRoot: endpoint,
        tokens: tokens ?? { accessToken: secret },
        userAgent,
        timeoutMs,
      }),
  },
  describe: { account: '@username', address: 'X API root' },
  load: async () => (await import('./x-connector.js')).openX,
  app: {
    name: 'X',
    registerAt: 'https://developer.x.com/en/portal/dashboard',
    authRoot: 'https://x.com',
    apiRoot: 'https://api.x.com',
  },
  oauth: async () => (await import('./x-oauth.js')).xOAuth,
};
