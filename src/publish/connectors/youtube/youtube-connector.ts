/**
 * The YouTube connector: a post becomes one video of the channel, sent by resumable upload
 * (youtube-upload.ts), its words and privacy from youtube-video.ts; once YouTube has processed it, it
 * goes to the post's playlists of this channel (`playlistItems.insert`); its URL is the watch page. The
 * auto-comment is a comment thread on the video (`commentThreads.insert`).
 *
 * Steps, never waiting inside a send, each stored before the next begins (any process goes on):
 * - `deliver` (the commit) refuses what YouTube would refuse, opens the upload session and answers
 *   `pending` with its URI: from then on a broken connection or a restart never starts the upload over;
 * - `check` of the upload asks the session what it has (`Content-Range: bytes *\/N` → 308 + `Range`)
 *   and sends the rest from there, chunk by chunk from disk; a connection broken meanwhile fails the
 *   check, and the engine's next check asks the session again (a check is always repeated);
 * - `check` of the processing reads `status.uploadStatus` until `processed` (or fails with YouTube's
 *   `failureReason` / `rejectionReason`), then adds the playlists, then the delivery is sent.
 * The upload cannot go ahead of the due time (`prepare`): its last byte publishes the video.
 *
 * `confirm` (after a commit whose process stopped) goes on from the stored step; with none, no session
 * was opened, so nothing was published (`absent`). Google's quota is told by the failures
 * (youtube-failures.ts): a spent day waits for midnight Pacific Time.
 */
import type {
  CheckOutcome,
  CommentJob,
  ConfirmOutcome,
  DeliveryJob,
  PendingOutcome,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, MediaSource, OpenConnector } from '../../connector.js';
import { GOOGLE_AUTH_ROOT } from '../google/google-oauth.js';
import { connectionToken } from '../oauth-tokens.js';
import { NotForPlatform, PlatformRefusal } from '../platform-api.js';
import { type YouTubeApi, youtubeApi } from './youtube-api.js';
import { probeSession, SessionStalled, startSession, uploadFrom } from './youtube-upload.js';
import { playlistsOf, processingOf, videoResource, watchUrl } from './youtube-video.js';

/** The first check of a processing video, then half as long again each time, up to the longest. */
const CHECK_MS = { first: 10_000, longest: 120_000 };
/** How long a delivery may take from its session to its last playlist before it fails. */
const DEADLINE_MS = 24 * 3_600_000;

/** What the steps store (JSON in the store, read by any process). */
export interface YouTubeState {
  step: 'upload' | 'processing' | 'playlists';
  /** The upload session's URI (the upload step). */
  session: string | null;
  videoId: string | null;
  /** The playlists the video was added to. */
  added: string[];
  sinceMs: number;
  checks: number;
}

function readState(state: DeliveryJob['state']): YouTubeState | undefined {
  const value = state as Partial<YouTubeState>;
  if (value.step !== 'upload' && value.step !== 'processing' && value.step !== 'playlists') return undefined;
  const session = typeof value.session === 'string' && value.session ? value.session : null;
  const videoId = typeof value.videoId === 'string' && value.videoId ? value.videoId : null;
  if (value.step === 'upload' ? !session : !videoId) return undefined;
  return {
    step: value.step,
    session,
    videoId,
    added: Array.isArray(value.added) ? value.added.filter((id) => typeof id === 'string') : [],
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
    checks: typeof value.checks === 'number' ? value.checks : 0,
  };
}

/** The session is gone (404, 410: expired) or takes no more: only a new one can carry the video. */
function sessionLost(error: unknown): boolean {
  if (error instanceof SessionStalled) return true;
  return error instanceof PlatformRefusal && (error.answer.status === 404 || error.answer.status === 410);
}

class YouTubePublisher implements Publisher {
  readonly name = 'youtube';
  /** Only the upload session deduplicates; a playlist item or a comment sent twice is there twice. */
  readonly idempotent = false;
  private readonly api: YouTubeApi;

  constructor(
    connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const { token, secrets } = connectionToken(connection, {
      hooks: async () => (await import('./youtube-oauth.js')).youtubeOAuth,
      authRoot: GOOGLE_AUTH_ROOT,
      platform: 'YouTube',
      context,
    });
    const root = connection.endpoint.replace(/\/+$/, '');
    this.api = youtubeApi(root, connection.account, token, context, secrets);
  }

  /** Opens the upload session (nothing public yet): pending, the upload next. */
  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    const state = readState(job.state);
    if (state) return this.advance(job, state);
    try {
      const session = await this.openSession(job);
      const opened: YouTubeState = {
        step: 'upload',
        session,
        videoId: null,
        added: [],
        sinceMs: this.now(),
        checks: 0,
      };
      return this.pending(opened, this.now(), 'YouTube opened the upload session: the video goes up next.');
    } catch (error) {
      return this.api.failure(error, 'session');
    }
  }

  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state) return { ok: false, kind: 'refused', reason: 'The YouTube delivery has no upload to check.' };
    return this.advance(job, { ...state, checks: state.checks + 1 });
  }

  /** After a commit whose process stopped: on from the stored step; none stored, nothing was sent. */
  async confirm(job: DeliveryJob): Promise<ConfirmOutcome> {
    const state = readState(job.state);
    return state ? this.advance(job, state) : { ok: 'absent' };
  }

  /** The auto-comment: a comment thread on the video. */
  async comment(job: CommentJob): Promise<PublishOutcome> {
    if (!job.externalId) return { ok: false, kind: 'refused', reason: 'The YouTube video has no id.' };
    try {
      const answer = await this.api.json('POST', '/youtube/v3/commentThreads?part=snippet', {
        snippet: { videoId: job.externalId, topLevelComment: { snippet: { textOriginal: job.comment } } },
      });
      const id = (answer.json as { id?: unknown } | undefined)?.id;
      const externalId = typeof id === 'string' && id ? id : null;
      const url = `${watchUrl(job.externalId)}${externalId ? `&lc=${encodeURIComponent(externalId)}` : ''}`;
      return { ok: true, externalId, url };
    } catch (error) {
      return this.api.failure(error, 'comment');
    }
  }

  close(): Promise<void> {
    return this.api.close();
  }

  private now(): number {
    return this.context.clock.now();
  }

  private advance(job: DeliveryJob, state: YouTubeState): Promise<StepOutcome> {
    if (state.step === 'upload') return this.upload(job, state);
    if (state.step === 'processing') return this.processing(job, state);
    return this.playlists(job, state);
  }

  /** The post's one video, refused before anything is sent when YouTube would not take it. */
  private async video(job: DeliveryJob): Promise<MediaSource> {
    const { media } = job.content;
    if (media.length !== 1) {
      throw new NotForPlatform(
        media.length === 0
          ? 'YouTube publishes a video: add one to the post, or leave this channel out.'
          : `YouTube publishes one video a post; this one has ${media.length} media: keep one.`,
      );
    }
    const file = await this.context.loadMedia(job.brandId, media[0]!);
    if (!file.type.startsWith('video/')) {
      await file.release();
      throw new NotForPlatform(`YouTube publishes videos; the post's media is ${file.type}: give a video.`);
    }
    return file;
  }

  private async openSession(job: DeliveryJob): Promise<string> {
    const resource = videoResource(job);
    const file = await this.video(job);
    try {
      return await startSession(this.api, resource, file);
    } finally {
      await file.release();
    }
  }

  /**
   * Asks the session what it has and sends the rest. A connection that breaks meanwhile fails this
   * check (the engine checks again: the next one asks the session again and goes on from there).
   */
  private async upload(job: DeliveryJob, state: YouTubeState): Promise<StepOutcome> {
    const session = state.session!;
    let file: MediaSource | undefined;
    try {
      file = await this.video(job);
      const probed = await probeSession(this.api, session, file.size);
      if (!probed.done && probed.received > 0) {
        this.context.log(
          `YouTube has ${probed.received} of ${file.size} bytes of the upload of ${this.api.account}: going on from there.`,
        );
      }
      const video = probed.done ? probed.video : await uploadFrom(this.api, session, file, probed.received);
      const videoId = String(video.id);
      const next: YouTubeState = { ...state, step: 'processing', session: null, videoId, checks: 0 };
      return this.pending(next, this.now() + CHECK_MS.first, 'YouTube is processing the video.');
    } catch (error) {
      if (!sessionLost(error)) return this.api.failure(error, 'upload');
      // Google no longer has the session: a new one is the only way, and nothing was published.
      this.context.log(`The YouTube upload session of ${this.api.account} is gone: opening a new one.`);
      try {
        const fresh = { ...state, session: await this.openSession(job), checks: 0 };
        return this.pending(
          fresh,
          this.now(),
          'YouTube opened a new upload session: the video goes up next.',
        );
      } catch (again) {
        return this.api.failure(again, 'session');
      }
    } finally {
      await file?.release();
    }
  }

  /** Reads the video's processing: pending until processed, then the playlists. */
  private async processing(job: DeliveryJob, state: YouTubeState): Promise<StepOutcome> {
    const videoId = state.videoId!;
    try {
      const query = new URLSearchParams({ part: 'status,processingDetails', id: videoId });
      const answer = await this.api.call('GET', `/youtube/v3/videos?${query}`);
      const processing = processingOf(answer.json);
      if (processing.state === 'failed') {
        return {
          ok: false,
          kind: 'refused',
          reason: `YouTube did not publish the video ${videoId} (${processing.said}): check the file, then publish again.`,
        };
      }
      if (processing.state === 'processing') {
        const backoff = Math.min(CHECK_MS.first * 1.5 ** state.checks, CHECK_MS.longest);
        const wait = Math.max(CHECK_MS.first, Math.min(processing.timeLeftMs ?? backoff, CHECK_MS.longest));
        return this.pending(state, this.now() + Math.round(wait), 'YouTube is processing the video.');
      }
      return this.playlists(job, { ...state, step: 'playlists', checks: 0 });
    } catch (error) {
      return this.api.failure(error, 'read');
    }
  }

  /**
   * Adds the video to the post's playlists of this channel, each once. A playlist YouTube refuses (not
   * the channel's, gone) is told in the log and the video stays published; a failure that passes (a
   * limit, a server) waits for the next check with the ones added kept; one whose answer was lost is
   * not sent again (it may be there).
   */
  private async playlists(job: DeliveryJob, state: YouTubeState): Promise<StepOutcome> {
    const videoId = state.videoId!;
    const added = [...state.added];
    for (const playlistId of playlistsOf(job).filter((id) => !added.includes(id))) {
      try {
        await this.api.json('POST', '/youtube/v3/playlistItems?part=snippet', {
          snippet: { playlistId, resourceId: { kind: 'youtube#video', videoId } },
        });
        added.push(playlistId);
      } catch (error) {
        const failure = this.api.failure(error, 'playlist');
        if (failure.kind === 'transient' || failure.kind === 'rate_limited') {
          const wait = Math.max(CHECK_MS.first, Math.min(failure.retryAfterMs ?? 60_000, 3_600_000));
          return this.pending({ ...state, added }, this.now() + wait, failure.reason);
        }
        added.push(playlistId);
        this.context.log(
          `The video ${videoId} was not added to the playlist ${playlistId}: ${failure.reason}`,
        );
      }
    }
    return { ok: true, externalId: videoId, url: watchUrl(videoId) };
  }

  private pending(state: YouTubeState, checkAtMs: number, reason: string): PendingOutcome {
    return {
      ok: 'pending',
      state: { ...state },
      checkAtMs,
      reason,
      deadlineAtMs: state.sinceMs + DEADLINE_MS,
    };
  }
}

export const openYouTube: OpenConnector = (connection, context) => new YouTubePublisher(connection, context);
