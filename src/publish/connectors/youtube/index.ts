/**
 * The YouTube module: a YouTube channel signed in with Google (OAuth with offline access, the operator's
 * GOOGLE app), each post one video sent by resumable upload (`videos.insert`), then added to the
 * post's playlists; its auto-comment a comment thread. The upload session is the only deduplication:
 * a video whose last answer was lost is found by asking the session, never uploaded twice.
 */
import type { ConnectorModule } from '../module.js';

export const youtube: ConnectorModule<'youtube'> = {
  kind: 'youtube',
  channelType: 'YouTube',
  displayName: 'YouTube',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://www.googleapis.com',
        help: "Google's API root for YouTube, uploads included (a stand-in for tests)",
      },
    ],
    verify: async (input) => (await import('./youtube-account.js')).verifyYouTube(input),
  },
  describe: { account: 'channel title', address: 'YouTube API root' },
  load: async () => (await import('./youtube-connector.js')).openYouTube,
  app: {
    name: 'GOOGLE',
    registerAt: 'https://console.cloud.google.com/apis/credentials',
    authRoot: 'https://accounts.google.com',
    apiRoot: 'https://www.googleapis.com',
  },
  oauth: async () => (await import('./youtube-oauth.js')).youtubeOAuth,
};
