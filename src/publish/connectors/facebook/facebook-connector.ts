/**
 * The Facebook connector: a post becomes one post of the connected Page (facebook-post.ts says what
 * each field becomes), its auto-comment a comment on it (`POST /{post}/comments`), with the Page's
 * token (which does not expire; a dead one, Meta's code 190, asks for a new sign-in).
 *
 * Every file goes up as bytes (multipart `source`, streamed from disk): nothing needs a public URL.
 *
 * Steps, never waiting inside a send: `prepare` uploads the photos of the post ahead of the due time,
 * unpublished (`published=false`); `deliver` (the commit) then makes one `/feed` post attaching them
 * (`attached_media`), or uploads them itself first. Meta documents no time after which an unpublished
 * photo is dropped (unconfirmed): photos are prepared at most an hour ahead and used for 6 hours, past
 * that they are uploaded again. A video is posted by `deliver` (`/videos`, which publishes it; a Reel or
 * a video Story in the three phases of facebook-reels.ts) and Meta processes it after: the step is
 * `pending` and `check` asks for its status until it is ready (or failed, with Meta's reason).
 *
 * Meta has no idempotency key: a commit whose answer is lost is never sent again (`unknown`).
 */
import { FormData } from 'undici';
import type {
  CheckOutcome,
  CommentJob,
  DeliveryJob,
  PendingOutcome,
  PreparedOutcome,
  PrepareOutcome,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, MediaSource, OpenConnector } from '../../connector.js';
import type { PlatformAnswer } from '../../platform-http.js';
import { graphVersionOf, metaLimitOf, ruploadRootOf, videoRootOf } from '../meta/graph.js';
import { connectionToken } from '../oauth-tokens.js';
import { FacebookApi, type FacebookStage, NotForFacebook } from './facebook-api.js';
import { FACEBOOK_AUTH_ROOT } from './facebook-oauth.js';
import { feedForm, mediaMessage, permalinkOf, placeOf, shapeOf } from './facebook-post.js';
import { finishShortVideo, type ShortVideo, uploadShortVideo } from './facebook-reels.js';
import { postVideo, videoFailure } from './facebook-video.js';

const HOUR_MS = 3_600_000;
/** How long before the due time photos may be uploaded unpublished (see above). */
export const FACEBOOK_PREPARE_LEAD_MS = HOUR_MS;
const PREPARED_KEPT_MS = 6 * HOUR_MS;
/** The first check of a processing video, then half as long again each time, up to the longest. */
const CHECK_MS = { first: 10_000, longest: 60_000 };
/** How long a video may stay in processing before the delivery fails. */
const PROCESSING_DEADLINE_MS = 60 * 60_000;

/** What the steps store (JSON in the store, read by any process). */
export interface FacebookState {
  step: 'prepare' | 'commit';
  /** Unpublished photos uploaded ahead. */
  photoIds: string[];
  /** The video posted, while Meta processes it. */
  videoId?: string;
  /** What the video is: a Reel or a Story (else a video of the feed), and the Story's post id. */
  surface?: ShortVideo;
  postId?: string;
  checks: number;
  sinceMs: number;
}

function readState(state: DeliveryJob['state']): FacebookState | undefined {
  const value = state as Partial<FacebookState>;
  if (value.step !== 'prepare' && value.step !== 'commit') return undefined;
  const photoIds = Array.isArray(value.photoIds) ? value.photoIds.filter((id) => typeof id === 'string') : [];
  return {
    step: value.step,
    photoIds,
    ...(typeof value.videoId === 'string' ? { videoId: value.videoId } : {}),
    ...(value.surface === 'reel' || value.surface === 'story' ? { surface: value.surface } : {}),
    ...(typeof value.postId === 'string' ? { postId: value.postId } : {}),
    checks: typeof value.checks === 'number' ? value.checks : 0,
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
  };
}

const idOf = (json: unknown, key = 'id'): string | null => {
  const value = (json as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' && value ? value : null;
};

class FacebookPublisher implements Publisher {
  readonly name = 'facebook';
  /** Meta has no idempotency key: a post whose outcome is unknown is never resent blindly. */
  readonly idempotent = false;
  readonly prepareLeadMs = FACEBOOK_PREPARE_LEAD_MS;
  private readonly api: FacebookApi;
  private readonly page: string;

  constructor(
    connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const version = graphVersionOf(connection.settings);
    const root = connection.endpoint.replace(/\/+$/, '');
    this.page = encodeURIComponent(connection.accountId);
    // A Page token does not expire and Meta has no refresh token: nothing to renew after a refusal.
    const { token, secrets } = connectionToken(connection, {
      hooks: async () => (await import('./facebook-oauth.js')).facebookOAuth,
      authRoot: FACEBOOK_AUTH_ROOT,
      platform: 'Facebook',
      context,
    });
    this.api = new FacebookApi(
      `${root}/${version}`,
      `${videoRootOf(root)}/${version}`,
      `${ruploadRootOf(root)}/video-upload/${version}`,
      connection.account,
      { token: () => token.token() },
      context,
      secrets,
    );
  }

  /** Uploads the post's photos unpublished ahead of the due time (nothing else goes up ahead). */
  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    try {
      return this.prepared(await this.uploadPhotos(job, 'prepare'));
    } catch (error) {
      return this.api.failure(error, 'upload');
    }
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    let stage: FacebookStage = 'upload';
    try {
      let state = readState(job.state);
      if (state && state.sinceMs + PREPARED_KEPT_MS < this.now()) state = undefined;
      if (state?.videoId) return await this.videoOutcome({ ...state, step: 'commit' });
      const files = await this.load(job);
      try {
        const shape = shapeOf(
          job.content,
          files.map((file) => file.type),
        );
        const photoIds = state?.photoIds ?? [];
        if (shape.kind === 'video') {
          return await this.postVideo(job, files[0]!, () => {
            stage = 'post';
          });
        }
        if (shape.kind === 'reel' || shape.kind === 'story-video') {
          stage = 'video';
          return await this.postShortVideo(job, files[0]!, shape.kind === 'reel' ? 'reel' : 'story', () => {
            stage = 'post';
          });
        }
        if (shape.kind === 'photos' && photoIds.length === 0 && shape.count === 1) {
          stage = 'post';
          return await this.postPhoto(job, files[0]!);
        }
        const ids = photoIds.length > 0 ? photoIds : await this.uploadEach(files);
        stage = 'post';
        if (shape.kind === 'story-photo') return await this.postStory(ids[0]!);
        return await this.postFeed(job, ids);
      } finally {
        await Promise.all(files.map((file) => file.release()));
      }
    } catch (error) {
      return this.api.failure(error, stage);
    }
  }

  /** A video Meta is processing: ready (sent), failed (refused), or still pending. */
  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state?.videoId) {
      return { ok: false, kind: 'refused', reason: 'The Facebook delivery has no video to check.' };
    }
    try {
      return await this.videoOutcome({ ...state, checks: state.checks + 1 });
    } catch (error) {
      return this.api.failure(error, 'read');
    }
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    if (!job.externalId) {
      return { ok: false, kind: 'refused', reason: 'The Facebook post to comment on has no id.' };
    }
    try {
      const answer = await this.api.call(
        'POST',
        `/${encodeURIComponent(job.externalId)}/comments`,
        () => new URLSearchParams({ message: job.comment }),
      );
      return {
        ok: true,
        externalId: idOf(answer.json),
        url: `https://www.facebook.com/${job.externalId}`,
        ...metaLimitOf(answer.headers, this.now()),
      };
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

  private async load(job: DeliveryJob): Promise<MediaSource[]> {
    const files: MediaSource[] = [];
    try {
      for (const element of job.content.media) files.push(await this.context.loadMedia(job.brandId, element));
    } catch (error) {
      await Promise.all(files.map((file) => file.release()));
      throw error;
    }
    return files;
  }

  /** The photos of a photo post or a photo Story, uploaded unpublished; none for other posts. */
  private async uploadPhotos(job: DeliveryJob, step: FacebookState['step']): Promise<FacebookState> {
    const state: FacebookState = { step, photoIds: [], checks: 0, sinceMs: this.now() };
    const files = await this.load(job);
    try {
      const shape = shapeOf(
        job.content,
        files.map((file) => file.type),
      );
      if (shape.kind === 'photos' || shape.kind === 'story-photo') {
        state.photoIds = await this.uploadEach(files);
      }
      return state;
    } finally {
      await Promise.all(files.map((file) => file.release()));
    }
  }

  /** Each photo as an unpublished photo of the Page: its id. */
  private async uploadEach(files: readonly MediaSource[]): Promise<string[]> {
    const ids: string[] = [];
    for (const file of files) {
      const blob = await file.blob();
      const answer = await this.api.call('POST', `/${this.page}/photos`, () => {
        const form = new FormData();
        form.set('published', 'false');
        form.set('source', blob, file.name);
        return form;
      });
      const id = idOf(answer.json);
      if (!id) throw new NotForFacebook('Facebook answered a photo upload without an id: publish again.');
      ids.push(id);
    }
    return ids;
  }

  private async postFeed(job: DeliveryJob, photoIds: readonly string[]): Promise<PublishOutcome> {
    const answer = await this.api.call('POST', `/${this.page}/feed?fields=id,permalink_url`, () =>
      feedForm(job.content, photoIds),
    );
    return this.sent(answer, idOf(answer.json));
  }

  private async postPhoto(job: DeliveryJob, file: MediaSource): Promise<PublishOutcome> {
    const blob = await file.blob();
    const answer = await this.api.call('POST', `/${this.page}/photos?fields=id,post_id,permalink_url`, () => {
      const form = new FormData();
      const message = mediaMessage(job.content);
      if (message) form.set('message', message);
      const place = placeOf(job.content);
      if (place) form.set('place', place);
      form.set('source', blob, file.name);
      return form;
    });
    return this.sent(answer, idOf(answer.json, 'post_id') ?? idOf(answer.json));
  }

  private async postStory(photoId: string): Promise<PublishOutcome> {
    const answer = await this.api.call(
      'POST',
      `/${this.page}/photo_stories`,
      () => new URLSearchParams({ photo_id: photoId }),
    );
    return this.sent(answer, idOf(answer.json, 'post_id') ?? photoId);
  }

  /** The video (facebook-video.ts), then pending while Meta processes it. */
  private async postVideo(job: DeliveryJob, file: MediaSource, commit: () => void): Promise<StepOutcome> {
    const { videoId, answer } = await postVideo(this.api, this.page, file, mediaMessage(job.content), commit);
    if (!videoId) return this.sent(answer, null);
    return this.pending({ step: 'commit', photoIds: [], videoId, checks: 0, sinceMs: this.now() });
  }

  /** A Reel or a video Story (facebook-reels.ts), then pending while Meta processes it. */
  private async postShortVideo(
    job: DeliveryJob,
    file: MediaSource,
    surface: ShortVideo,
    commit: () => void,
  ): Promise<StepOutcome> {
    const videoId = await uploadShortVideo(this.api, this.page, surface, file);
    commit();
    const { postId } = await finishShortVideo(this.api, this.page, surface, videoId, job.content);
    const state: FacebookState = {
      step: 'commit',
      photoIds: [],
      videoId,
      surface,
      checks: 0,
      sinceMs: this.now(),
    };
    return this.pending(postId ? { ...state, postId } : state);
  }

  /** Asks Meta about the video (`status`, facebook-video.ts reads it): ready, failed, or processing. */
  private async videoOutcome(state: FacebookState): Promise<StepOutcome> {
    const videoId = state.videoId!;
    const answer = await this.api.call('GET', `/${encodeURIComponent(videoId)}?fields=status,permalink_url`);
    const status = (answer.json as { status?: Record<string, unknown> } | undefined)?.status;
    const failed = videoFailure(status, state.surface === 'reel' ? 'Reel' : 'video of the post');
    if (failed) return { ok: false, kind: 'refused', reason: failed };
    const phase = (status?.publishing_phase as { status?: unknown } | undefined)?.status;
    const ready = ['ready', 'published'].includes(String(status?.video_status));
    if (!ready && !(state.surface && phase === 'complete')) return this.pending(state);
    if (state.surface === 'story') return this.sent(answer, state.postId ?? videoId);
    const permalink = (answer.json as { permalink_url?: unknown } | undefined)?.permalink_url;
    const reel = state.surface === 'reel' && typeof permalink !== 'string';
    return this.sent(answer, videoId, reel ? `https://www.facebook.com/reel/${videoId}` : undefined);
  }

  private sent(answer: PlatformAnswer, id: string | null, url?: string): PublishOutcome {
    return {
      ok: true,
      externalId: id,
      url: id === null ? null : (url ?? permalinkOf(answer.json, id)),
      ...metaLimitOf(answer.headers, this.now()),
    };
  }

  private prepared(state: FacebookState): PreparedOutcome {
    return { ok: 'prepared', state: { ...state }, expiresAtMs: state.sinceMs + PREPARED_KEPT_MS };
  }

  private pending(state: FacebookState): PendingOutcome {
    const wait = Math.min(CHECK_MS.first * 1.5 ** state.checks, CHECK_MS.longest);
    return {
      ok: 'pending',
      state: { ...state },
      checkAtMs: this.now() + Math.round(wait),
      reason: `Facebook is processing the ${state.surface === 'reel' ? 'Reel' : 'video'} of the post.`,
      deadlineAtMs: state.sinceMs + PROCESSING_DEADLINE_MS,
    };
  }
}

export const openFacebook: OpenConnector = (connection, context) =>
  new FacebookPublisher(connection, context);
