/**
 * Signing in to YouTube: Google's sign-in (google/google-oauth.ts) with YouTube's scope, and the
 * channels the approval may post as.
 *
 * `youtube.force-ssl` alone covers every call the connector makes: videos.insert takes it (as it takes
 * `youtube.upload`), and playlistItems.insert and commentThreads.insert need it or `youtube`
 * (developers.google.com/youtube/v3/docs/videos/insert, …/commentThreads/insert: "Authorization").
 */
import { googleOAuth } from '../google/google-oauth.js';
import type { OAuthHooks } from '../module.js';
import { channelsOf } from './youtube-account.js';

export const YOUTUBE_SCOPES = ['https://www.googleapis.com/auth/youtube.force-ssl'] as const;

export const youtubeOAuth: OAuthHooks = {
  ...googleOAuth(YOUTUBE_SCOPES),
  identities: ({ endpoint, accessToken, ...http }) => channelsOf(endpoint, accessToken, http),
};
