/**
 * The Instagram module: a professional (business or creator) account, posting through Meta's
 * containers (`POST /{ig-user}/media`, then `POST /{ig-user}/media_publish`). Two sign-ins, each with
 * an app of its own (`connect instagram --login facebook|instagram`): Facebook Login with the operator's
 * FACEBOOK app (the account linked to a Page, on graph.facebook.com, with the Page's token, which does
 * not expire), or Instagram Login with the INSTAGRAM app (graph.instagram.com, a 60-day token renewed
 * before it expires). Instagram fetches every media file from a public address: an uploaded file needs
 * serve's public address. Meta has no idempotency key: the container id makes a retried publish safe.
 */
import type { ConnectorModule } from '../module.js';

export const instagram: ConnectorModule<'instagram'> = {
  kind: 'instagram',
  channelType: 'Instagram',
  displayName: 'Instagram',
  idempotent: false,
  fetchesMediaByUrl: true,
  // An Instagram Login token dies at 60 days unrenewed (refreshable once 24 hours old): renewed with 30
  // days left, as Threads' is. A Page's token (Facebook Login) does not expire: nothing to renew.
  keepSignedInMs: 30 * 24 * 60 * 60_000,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://graph.facebook.com',
        help: "Meta's Graph API root (graph.instagram.com with --login instagram; a stand-in for tests)",
      },
    ],
    verify: async (input) => (await import('./instagram-account.js')).verifyInstagram(input),
  },
  describe: { account: '@username', address: 'Instagram Graph API root' },
  load: async () => (await import('./instagram-connector.js')).openInstagram,
  app: {
    name: 'FACEBOOK',
    registerAt: 'https://developers.facebook.com/apps',
    authRoot: 'https://www.facebook.com',
    apiRoot: 'https://graph.facebook.com',
  },
  oauth: async () => (await import('./instagram-oauth.js')).instagramFacebookOAuth,
  logins: {
    default: 'facebook',
    others: {
      instagram: {
        app: {
          name: 'INSTAGRAM',
          registerAt: 'https://developers.facebook.com/apps',
          authRoot: 'https://www.instagram.com',
          apiRoot: 'https://graph.instagram.com',
        },
        oauth: async () => (await import('./instagram-oauth.js')).instagramLoginOAuth,
      },
    },
  },
};
