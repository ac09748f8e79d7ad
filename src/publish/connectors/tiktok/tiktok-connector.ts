/**
 * The TikTok connector (Content Posting API). Before each post it reads creator_info (TikTok requires
 * it): the channel's privacy level must still be one the creator offers, and a video must be no longer
 * than their `max_video_post_duration_sec`. Then (tiktok-post.ts says what each field becomes):
 *
 * - a video: init with FILE_UPLOAD, then its chunks PUT in order (tiktok-video.ts);
 * - photos: init with PULL_FROM_URL: TikTok downloads each photo from its public address
 *   (`context.publicMediaUrl`: a URL element as it is, an uploaded file through serve's
 *   SOCIAL_PUBLISHER_PUBLIC_URL), which must be on a domain verified for the app.
 *
 * TikTok posts asynchronously: init gives a `publish_id`, and `POST /v2/post/publish/status/fetch/`
 * says how it goes. The status is read once right after the upload, then, never waiting inside a send,
 * the delivery is `pending` and `check` reads it again: PROCESSING_* → pending; PUBLISH_COMPLETE with
 * `publicaly_available_post_id` (TikTok's spelling, an array of numbers) → sent, with the post's URL;
 * PUBLISH_COMPLETE without it (moderation, or a private post TikTok gives no public id: unconfirmed)
 * → pending for up to an hour, then sent without an id; SEND_TO_USER_INBOX (sendToInbox) → sent, the
 * creator finishing it in the app; FAILED → refused with TikTok's `fail_reason`.
 *
 * TikTok has no idempotency key: a post whose answer is lost is never sent again blindly. An unfinished
 * upload is never posted, so the init and the chunks but the last may be repeated; when the last chunk's
 * answer is lost the status says whether the upload completed. No comment API: the auto-comment is
 * refused with that reason (pre-flight says so before).
 */

import { videoSeconds } from '../../../media/video-duration.js';
import type {
  CheckOutcome,
  CommentJob,
  DeliveryJob,
  FailedOutcome,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, OpenConnector } from '../../connector.js';
import { PlatformUnreachable } from '../../platform-http.js';
import { connectionToken } from '../oauth-tokens.js';
import { TIKTOK_DEFAULT_PRIVACY } from './tiktok-account.js';
import { NotForTikTok, TikTokApi, type TikTokStage } from './tiktok-api.js';
import { TIKTOK_RECONNECT } from './tiktok-failures.js';
import { type CreatorInfo, creatorInfoOf, TIKTOK_AUTH_ROOT } from './tiktok-oauth.js';
import {
  checkPhotoText,
  checkVideoText,
  mediaKindOf,
  type PostChoices,
  photoInit,
  sendsToInbox,
  videoInit,
} from './tiktok-post.js';
import { chunkPlan, uploadChunks } from './tiktok-video.js';

/** The first check of a post TikTok processes, then half as long again each time, up to the longest. */
const CHECK_MS = { first: 5_000, longest: 60_000 };
/** How long a post may stay in processing before the delivery fails. */
const PROCESSING_DEADLINE_MS = 2 * 3_600_000;
/** How long after PUBLISH_COMPLETE the public id is waited for (moderation is "usually under a minute"). */
export const TIKTOK_ID_WAIT_MS = 3_600_000;

/** What the pending step stores (JSON in the store, read by any process). */
export interface TikTokState {
  step: 'commit';
  publishId: string;
  photos: boolean;
  inbox: boolean;
  username: string;
  sinceMs: number;
  checks: number;
  /** When TikTok first said PUBLISH_COMPLETE without a public id. */
  completeAtMs?: number;
}

function readState(state: DeliveryJob['state']): TikTokState | undefined {
  const value = state as Partial<TikTokState>;
  if (value.step !== 'commit' || typeof value.publishId !== 'string' || !value.publishId) return undefined;
  return {
    step: 'commit',
    publishId: value.publishId,
    photos: value.photos === true,
    inbox: value.inbox === true,
    username: typeof value.username === 'string' ? value.username : '',
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
    checks: typeof value.checks === 'number' ? value.checks : 0,
    ...(typeof value.completeAtMs === 'number' ? { completeAtMs: value.completeAtMs } : {}),
  };
}

/**
 * The first of `publicaly_available_post_id`, read from the answer's text: TikTok writes the int64 ids
 * as JSON numbers, which JSON.parse would round (19 digits do not fit a double).
 */
export function publicPostIdOf(text: string): string | undefined {
  return /"publicaly_available_post_id"\s*:\s*\[\s*"?(\d+)/.exec(text)?.[1];
}

/** What a FAILED post's `fail_reason` means, where TikTok's code needs words. */
const FAIL_ADVICE: Record<string, string> = {
  duration_check_failed: "the video is longer than the creator's TikTok allows",
  file_format_check_failed:
    'TikTok takes MP4, MOV or WebM videos (H.264 recommended) and JPEG or WebP photos',
  frame_rate_check_failed: 'TikTok takes videos of 23 to 60 frames a second',
  picture_size_check_failed: 'TikTok takes videos of 360 to 4096 pixels a side and photos up to 1080p',
  video_pull_failed: 'TikTok could not download the video: its address must be public',
  photo_pull_failed:
    'TikTok could not download a photo: its address must be public, on a domain verified for the app',
  url_ownership_unverified: 'the domain of the photo addresses is not verified for the TikTok app',
};

class TikTokPublisher implements Publisher {
  readonly name = 'tiktok';
  /** TikTok has no idempotency key: a post whose outcome is unknown is never resent blindly. */
  readonly idempotent = false;
  private readonly api: TikTokApi;
  private readonly privacyLevel: string;

  constructor(
    private readonly connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const root = connection.endpoint.replace(/\/+$/, '');
    const level = connection.settings.privacyLevel;
    this.privacyLevel = typeof level === 'string' && level ? level : TIKTOK_DEFAULT_PRIVACY;
    const { token, secrets } = connectionToken(connection, {
      hooks: async () => (await import('./tiktok-oauth.js')).tiktokOAuth,
      authRoot: TIKTOK_AUTH_ROOT,
      platform: 'TikTok',
      context,
    });
    this.api = new TikTokApi(root, connection.account, token, context, secrets);
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    const stage: { now: TikTokStage } = { now: 'read' };
    try {
      const photos = mediaKindOf(job) === 'photos';
      if (photos) checkPhotoText(job);
      else checkVideoText(job);
      const inbox = sendsToInbox(job);
      const info = inbox ? undefined : await this.creatorInfo();
      const choices = this.choicesOf(info);
      const username = info?.username ?? this.connection.account.replace(/^@/, '');
      const publishId = photos
        ? await this.postPhotos(job, choices, stage)
        : await this.postVideo(job, choices, info, stage);
      const state: TikTokState = {
        step: 'commit',
        publishId,
        photos,
        inbox,
        username,
        sinceMs: this.now(),
        checks: 0,
      };
      try {
        return await this.afterStatus(state);
      } catch {
        // The post is made: a status that cannot be read now is read again later.
        return this.pending(state);
      }
    } catch (error) {
      return this.api.failure(error, stage.now);
    }
  }

  /** A post TikTok is processing: sent once it has its public id, refused when it failed. */
  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state)
      return { ok: false, kind: 'refused', reason: 'The TikTok delivery has no publish id to check.' };
    try {
      return await this.afterStatus({ ...state, checks: state.checks + 1 });
    } catch (error) {
      return this.api.failure(error, 'status');
    }
  }

  /** TikTok's API has no way to comment: the auto-comment is not posted, and says why. */
  async comment(_job: CommentJob): Promise<PublishOutcome> {
    return {
      ok: false,
      kind: 'refused',
      reason: 'TikTok has no API for comments: the auto-comment was skipped (post it in the TikTok app).',
    };
  }

  close(): Promise<void> {
    return this.api.close();
  }

  private now(): number {
    return this.context.clock.now();
  }

  private async creatorInfo(): Promise<CreatorInfo> {
    const { answer } = await this.api.post('/v2/post/publish/creator_info/query/');
    const info = creatorInfoOf(answer);
    if (!info) throw new NotForTikTok('TikTok answered creator_info without the creator: post it again.');
    return info;
  }

  private choicesOf(info: CreatorInfo | undefined): PostChoices {
    if (info && !info.privacyLevels.includes(this.privacyLevel)) {
      throw new NotForTikTok(
        `@${info.username} no longer offers the channel's privacy level ${this.privacyLevel} (TikTok offers ${info.privacyLevels.join(', ')}): run ${TIKTOK_RECONNECT} again and choose one.`,
      );
    }
    return {
      privacyLevel: this.privacyLevel,
      commentDisabled: info?.commentDisabled ?? false,
      duetDisabled: info?.duetDisabled ?? false,
      stitchDisabled: info?.stitchDisabled ?? false,
    };
  }

  private async postVideo(
    job: DeliveryJob,
    choices: PostChoices,
    info: CreatorInfo | undefined,
    stage: { now: TikTokStage },
  ): Promise<string> {
    const file = await this.context.loadMedia(job.brandId, job.content.media[0]!);
    try {
      const seconds = info?.maxVideoSeconds ? await videoSeconds(file) : null;
      if (seconds !== null && info?.maxVideoSeconds && seconds > info.maxVideoSeconds) {
        throw new NotForTikTok(
          `The video is ${Math.ceil(seconds)} seconds long, and TikTok lets @${info.username} post videos of at most ${info.maxVideoSeconds} seconds.`,
        );
      }
      const plan = chunkPlan(file.size);
      const init = videoInit(job, file.size, plan, choices);
      stage.now = 'init';
      const { data } = await this.api.post(init.path, init.body);
      const publishId = this.publishIdOf(data);
      const uploadUrl = this.api.uploadUrl(data.upload_url);
      stage.now = 'chunk';
      try {
        await uploadChunks(this.api, uploadUrl, file, plan, () => {
          stage.now = 'post';
        });
      } catch (error) {
        if ((stage.now as TikTokStage) === 'post' && error instanceof PlatformUnreachable && error.sent) {
          // The last chunk's answer is lost: the status says whether the upload completed.
          if (await this.uploadCompleted(publishId, file.size)) return publishId;
        }
        throw error;
      }
      return publishId;
    } finally {
      await file.release();
    }
  }

  private async postPhotos(job: DeliveryJob, choices: PostChoices, stage: { now: TikTokStage }) {
    const urls: string[] = [];
    for (const element of job.content.media) {
      const url = element.url ?? (await this.context.publicMediaUrl?.(job.brandId, element));
      if (!url) {
        throw new NotForTikTok(
          'TikTok pulls photos from a public address on a domain verified for the app, and this server has none for an uploaded file: run serve with SOCIAL_PUBLISHER_PUBLIC_URL set to its public https address (and verify its domain for the TikTok app), or give the photos as URLs.',
        );
      }
      urls.push(url);
    }
    const init = photoInit(job, urls, choices);
    stage.now = 'post';
    const { data } = await this.api.post(init.path, init.body);
    return this.publishIdOf(data);
  }

  private publishIdOf(data: Record<string, unknown>): string {
    const id = data.publish_id;
    if (typeof id !== 'string' || !id)
      throw new NotForTikTok('TikTok answered the post without a publish_id.');
    return id;
  }

  private async uploadCompleted(publishId: string, size: number): Promise<boolean> {
    try {
      const { data } = await this.api.post('/v2/post/publish/status/fetch/', { publish_id: publishId });
      return data.status !== 'PROCESSING_UPLOAD' || Number(data.uploaded_bytes) >= size;
    } catch {
      return false;
    }
  }

  /** The post's next step by its status. */
  private async afterStatus(state: TikTokState): Promise<StepOutcome> {
    const { data, answer } = await this.api.post('/v2/post/publish/status/fetch/', {
      publish_id: state.publishId,
    });
    const status = typeof data.status === 'string' ? data.status : '';
    if (status === 'FAILED') return this.failed(data.fail_reason);
    if (status === 'SEND_TO_USER_INBOX') {
      this.context.log(`TikTok sent publish ${state.publishId} to the inbox of ${this.connection.account}.`);
      return { ok: true, externalId: null, url: null };
    }
    if (status !== 'PUBLISH_COMPLETE') return this.pending(state);
    const id = publicPostIdOf(answer.text);
    if (id) {
      const kind = state.photos ? 'photo' : 'video';
      return { ok: true, externalId: id, url: `https://www.tiktok.com/@${state.username}/${kind}/${id}` };
    }
    const completeAtMs = state.completeAtMs ?? this.now();
    if (this.now() - completeAtMs < TIKTOK_ID_WAIT_MS) {
      return this.pending(
        { ...state, completeAtMs },
        'TikTok has posted it and has not given its public id yet (moderation).',
      );
    }
    this.context.log(`TikTok gave publish ${state.publishId} of ${this.connection.account} no public id.`);
    return { ok: true, externalId: null, url: this.connection.profileUrl };
  }

  private failed(reason: unknown): FailedOutcome {
    const said = typeof reason === 'string' && reason ? reason : 'no reason given';
    const advice = FAIL_ADVICE[said];
    return {
      ok: false,
      kind: 'refused',
      reason: `TikTok did not publish the post (${said})${advice ? `: ${advice}` : ''}.`,
    };
  }

  private pending(state: TikTokState, reason = 'TikTok is processing the post.'): StepOutcome {
    const wait = Math.min(CHECK_MS.first * 1.5 ** state.checks, CHECK_MS.longest);
    return {
      ok: 'pending',
      state: { ...state },
      checkAtMs: this.now() + Math.round(wait),
      reason,
      deadlineAtMs: Math.max(
        state.sinceMs + PROCESSING_DEADLINE_MS,
        (state.completeAtMs ?? 0) + TIKTOK_ID_WAIT_MS * 2,
      ),
    };
  }
}

export const openTikTok: OpenConnector = (connection, context) => new TikTokPublisher(connection, context);
