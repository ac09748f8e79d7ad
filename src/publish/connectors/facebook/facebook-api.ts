/**
 * One call to the Graph API with the Page's token, and every way a call fails turned into the kinds
 * the engine acts on (connectors/http.ts with the Meta hooks decides). The token is sent as
 * `Authorization: Bearer` (never in a URL, where a proxy's log would keep it). A Page token does not
 * expire and Meta has no refresh token: a token Meta refuses (code 190) asks for a new sign-in.
 */
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { ConnectorContext, MediaSource } from '../../connector.js';
import type { PlatformAnswer } from '../../platform-http.js';
import { type ApiToken, PlatformApi } from '../platform-api.js';
import { FACEBOOK_HOOKS } from './facebook-account.js';

/** What a call was: an unpublished upload or a read creates nothing public (may be repeated). */
export type FacebookStage = 'upload' | 'video' | 'read' | 'post' | 'comment';

/** Refused before anything is sent: what Facebook cannot take, said in our words. */
export { NotForPlatform as NotForFacebook } from '../platform-api.js';

export class FacebookApi extends PlatformApi<FacebookStage> {
  constructor(
    /** `https://graph.facebook.com/v25.0`, or a stand-in's. */
    base: string,
    /** Where videos go: `https://graph-video.facebook.com/v25.0`, or the base. */
    readonly videoBase: string,
    /** Where the bytes of Reels and video Stories go: `https://rupload.facebook.com/video-upload/v25.0`. */
    readonly uploadBase: string,
    account: string,
    token: ApiToken,
    context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    secrets: readonly string[],
  ) {
    super({
      base,
      account,
      token,
      context,
      secrets,
      hooks: FACEBOOK_HOOKS,
      stages: {
        upload: { what: 'photo upload', repeatable: true },
        video: { what: 'video upload', repeatable: true },
        read: { what: 'read of the video', repeatable: true },
        post: { what: 'post' },
        comment: { what: 'comment' },
      },
    });
  }

  /**
   * A file's bytes to Meta's upload host (the Reels guide's upload step): `Authorization: OAuth`, the
   * whole file from `offset: 0` with its `file_size`, streamed from disk (never whole in memory).
   */
  async upload(url: string, file: MediaSource): Promise<PlatformAnswer> {
    const blob = await file.blob();
    return this.call('POST', url, () => Readable.fromWeb(blob.stream() as ReadableStream<Uint8Array>), {
      scheme: 'OAuth',
      headers: { offset: '0', file_size: String(file.size), 'content-type': 'application/octet-stream' },
    });
  }
}
