/**
 * The Bluesky module: an account on any PDS, signed in with an app password (the session kept and
 * renewed). Records are deduplicated by a record key derived from the delivery; images are uploaded as
 * blobs ahead of the due time (prepare).
 */
import type { ConnectorModule } from '../module.js';

export const bluesky: ConnectorModule<'bluesky'> = {
  kind: 'bluesky',
  channelType: 'Bluesky',
  displayName: 'Bluesky',
  idempotent: true,
  connect: {
    flags: [
      { name: 'handle', role: 'account', value: 'H', required: true, help: "the account's handle" },
      {
        name: 'service',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://bsky.social',
        help: "the account's PDS or entryway",
      },
      {
        name: 'password-env',
        role: 'secret',
        value: 'VAR',
        help: 'the environment variable that holds an app password',
      },
    ],
    secretPrompt: (account) =>
      `App password of ${account} (Settings → Privacy and security → App passwords): `,
    verify: async ({ endpoint, account, secret, userAgent, timeoutMs }) =>
      (await import('./bluesky-account.js')).verifyBluesky({
        service: endpoint,
        handle: account ?? '',
        password: secret,
        userAgent,
        timeoutMs,
      }),
  },
  describe: { account: 'handle', address: 'Bluesky PDS' },
  load: async () => (await import('./bluesky-connector.js')).openBluesky,
};
