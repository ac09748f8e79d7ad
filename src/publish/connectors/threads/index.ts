/**
 * The Threads module: a Threads profile signed in with Threads Login through the operator's Meta app
 * (its Threads app id and secret), posting through the Threads API's containers (`POST /me/threads`,
 * then `POST /me/threads_publish`). Threads fetches every media file from a public address (there is
 * no byte upload): an uploaded file needs serve's public address. Meta has no idempotency key: a post
 * whose answer was lost is never sent again blindly.
 */
import type { ConnectorModule } from '../module.js';

/**
 * The 60-day token is renewed once 30 days are left (…/threads/get-started/long-lived-tokens: a token
 * at least 24 hours old and unexpired can be refreshed; one left unrefreshed dies at 60 days): by a
 * post of its second month, or by the engine on a channel that posts nothing.
 */
export const THREADS_RENEW_AHEAD_MS = 30 * 24 * 60 * 60_000;

export const threads: ConnectorModule<'threads'> = {
  kind: 'threads',
  channelType: 'Threads',
  displayName: 'Threads',
  idempotent: false,
  fetchesMediaByUrl: true,
  keepSignedInMs: THREADS_RENEW_AHEAD_MS,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://graph.threads.net',
        help: 'the Threads API root (a stand-in for tests)',
      },
    ],
    verify: async (input) => (await import('./threads-account.js')).verifyThreads(input),
  },
  describe: { account: '@username', address: 'Threads API root' },
  load: async () => (await import('./threads-connector.js')).openThreads,
  app: {
    name: 'THREADS',
    registerAt: 'https://developers.facebook.com/apps',
    authRoot: 'https://threads.net',
    apiRoot: 'https://graph.threads.net',
  },
  oauth: async () => (await import('./threads-oauth.js')).threadsOAuth,
};
