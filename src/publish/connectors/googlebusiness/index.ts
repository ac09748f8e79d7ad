/**
 * The Google Business Profile module: a business location, signed in with Google through the
 * operator's `GOOGLE` app (business.manage), posting local posts (`accounts/{a}/locations/{l}/
 * localPosts` of the Google My Business API v4). Google has no idempotency key: a post whose answer was
 * lost is looked for among the location's posts, never sent again blindly. Google fetches a post's photo
 * itself from a public address.
 */
import type { ConnectorModule } from '../module.js';

export const googlebusiness: ConnectorModule<'googlebusiness'> = {
  kind: 'googlebusiness',
  channelType: 'Google Business',
  displayName: 'Google Business Profile',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://mybusiness.googleapis.com',
        help: "Google's Business Profile API root (a stand-in for tests: every Business Profile API on it)",
      },
    ],
    verify: async (input) => (await import('./business-account.js')).verifyGoogleBusiness(input),
  },
  describe: { account: 'location title', address: 'Business Profile API root' },
  load: async () => (await import('./business-connector.js')).openGoogleBusiness,
  fetchesMediaByUrl: true,
  app: {
    name: 'GOOGLE',
    registerAt: 'https://console.cloud.google.com/apis/credentials',
    authRoot: 'https://accounts.google.com',
    apiRoot: 'https://mybusiness.googleapis.com',
  },
  oauth: async () => (await import('./business-account.js')).googleBusinessOAuth,
};
