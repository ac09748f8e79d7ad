/**
 * The Facebook module: a Facebook Page, signed in with Facebook Login through the operator's Meta app
 * (a long-lived user token, from which the Page's own token is read: it does not expire), posting
 * through the Graph API (`/{page}/feed`, `/photos`, `/videos`, `/video_reels`, `/photo_stories`,
 * `/video_stories`, the bytes of Reels and video Stories on rupload.facebook.com). Meta has no
 * idempotency key: a post whose answer was lost is never sent again blindly.
 */
import type { ConnectorModule } from '../module.js';

export const facebook: ConnectorModule<'facebook'> = {
  kind: 'facebook',
  channelType: 'Facebook',
  displayName: 'Facebook',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://graph.facebook.com',
        help: "Meta's Graph API root (a stand-in for tests)",
      },
    ],
    verify: async (input) => (await import('./facebook-account.js')).verifyFacebook(input),
  },
  describe: { account: 'Page name', address: 'Graph API root' },
  load: async () => (await import('./facebook-connector.js')).openFacebook,
  app: {
    name: 'FACEBOOK',
    registerAt: 'https://developers.facebook.com/apps',
    authRoot: 'https://www.facebook.com',
    apiRoot: 'https://graph.facebook.com',
  },
  oauth: async () => (await import('./facebook-oauth.js')).facebookOAuth,
};
