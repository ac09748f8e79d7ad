/**
 * YouTube's API calls: the shared PlatformApi (connectors/platform-api.ts) with YouTube's hooks and the
 * stages of a delivery. Opening a session and reading create nothing public: an unanswered one is
 * transient. An upload's last chunk creates the video: an unanswered one is unknown, and the check
 * after it asks the session (a check is always repeated). A playlist item and a comment thread are
 * created once: an unanswered one is in doubt.
 */
import type { ConnectorContext } from '../../connector.js';
import { type ApiToken, PlatformApi } from '../platform-api.js';
import { YOUTUBE_HOOKS } from './youtube-failures.js';

export type YouTubeStage = 'session' | 'upload' | 'read' | 'playlist' | 'comment';

export type YouTubeApi = PlatformApi<YouTubeStage>;

export const YOUTUBE_API_ROOT = 'https://www.googleapis.com';

export function youtubeApi(
  apiRoot: string,
  account: string,
  token: ApiToken,
  context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
  secrets: readonly string[],
): YouTubeApi {
  return new PlatformApi({
    base: apiRoot,
    account,
    token,
    context,
    secrets,
    hooks: YOUTUBE_HOOKS,
    stages: {
      session: { what: 'upload session', repeatable: true },
      upload: { what: 'video upload' },
      read: { what: 'read of the video', repeatable: true },
      playlist: { what: 'playlist item' },
      comment: { what: 'comment' },
    },
  });
}
