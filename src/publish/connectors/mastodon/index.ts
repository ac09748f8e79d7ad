/**
 * The Mastodon module: any instance, an access token made by the sign-in flow (OAuth, the app
 * registered on the instance by the program itself) or by hand. Statuses are deduplicated by
 * Idempotency-Key; video is processed by the instance after upload (prepare, then pending).
 */
import type { ConnectorModule } from '../module.js';

export const mastodon: ConnectorModule<'mastodon'> = {
  kind: 'mastodon',
  channelType: 'Mastodon',
  displayName: 'Mastodon',
  idempotent: true,
  connect: {
    flags: [
      { name: 'instance', role: 'endpoint', value: 'URL', required: true, help: "the instance's address" },
      {
        name: 'token-env',
        role: 'secret',
        value: 'VAR',
        help: 'the environment variable that holds an access token (without it: the sign-in flow)',
      },
    ],
    verify: async ({ endpoint, secret, userAgent, timeoutMs }) =>
      (await import('./mastodon-account.js')).verifyMastodon({
        instance: endpoint,
        token: secret,
        userAgent,
        timeoutMs,
      }),
  },
  describe: { account: '@name@instance', address: 'Mastodon instance' },
  load: async () => (await import('./mastodon-connector.js')).openMastodon,
  oauth: async () => (await import('./mastodon-oauth.js')).mastodonOAuth,
};
