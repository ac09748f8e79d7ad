/**
 * The LinkedIn module: a member, or an organization page they administer, signed in with the operator's
 * LinkedIn app (OAuth, no PKCE), posting through the versioned REST API (`/rest/posts`). LinkedIn
 * cannot deduplicate a post: a commit whose answer is lost is never sent again.
 */
import type { ConnectorModule } from '../module.js';

export const linkedin: ConnectorModule<'linkedin'> = {
  kind: 'linkedin',
  channelType: 'LinkedIn',
  displayName: 'LinkedIn',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://api.linkedin.com',
        help: "LinkedIn's API root (a stand-in for tests)",
      },
    ],
    verify: async (input) => (await import('./linkedin-account.js')).verifyLinkedIn(input),
  },
  describe: { account: 'member or page name', address: 'LinkedIn API root' },
  load: async () => (await import('./linkedin-connector.js')).openLinkedIn,
  app: {
    name: 'LINKEDIN',
    registerAt: 'https://www.linkedin.com/developers/apps',
    authRoot: 'https://www.linkedin.com',
    apiRoot: 'https://api.linkedin.com',
  },
  oauth: async () => (await import('./linkedin-oauth.js')).linkedinOAuth,
};
