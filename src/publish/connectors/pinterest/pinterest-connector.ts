/**
 * The Pinterest connector: a post becomes one pin on the channel's board (`POST /v5/pins`,
 * pinterest-pin.ts says what each field becomes), with the board's token, renewed by the TokenKeeper
 * before it expires (a refresh gives a new refresh token, which replaces the old one).
 *
 * Images go with the pin itself (by URL, or their bytes base64 encoded as the body streams). A video
 * goes up first, in steps, never waited for inside a send (developers.pinterest.com/docs/content/update):
 * `POST /v5/media` registers it and answers an Amazon S3 address with the fields of a presigned POST;
 * the file goes there as a multipart form, streamed from disk (S3 answers 204); Pinterest then
 * processes it: `GET /v5/media/{id}` says `registered`, `processing`, `succeeded` or `failed`. While it
 * processes the step is `pending`, and `check` asks again; once `succeeded`, the pin is made with
 * `video_id`. `prepare` does all this ahead of the due time, so that the due second sends only the pin.
 * Pinterest does not say how long it keeps an unused upload: a video is uploaded at most an hour ahead
 * and used within 6 hours, past that uploaded again.
 *
 * Pinterest has no idempotency key and no comment API: a pin whose answer is lost is never sent again
 * blindly (`unknown`): `confirm` looks for it among the board's pins (pinterest-lookup.ts), and only a
 * pin found absent is made again. The auto-comment is skipped with that reason.
 */
import { FormData } from 'undici';
import type {
  CheckOutcome,
  CommentJob,
  ConfirmOutcome,
  DeliveryJob,
  PendingOutcome,
  PrepareOutcome,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, MediaSource, OpenConnector } from '../../connector.js';
import { limitOf } from '../http.js';
import { SignInExpired, TokenKeeper, tokensOf } from '../oauth-tokens.js';
import { type ProcessingSchedule, processingPending } from '../processing.js';
import { Malformed, PinterestApi, type PinterestStage, type PinterestToken } from './pinterest-api.js';
import { PINTEREST_AUTH_ROOT } from './pinterest-failures.js';
import { findPin } from './pinterest-lookup.js';
import {
  checkInlineImage,
  imageSource,
  NotForPinterest,
  pinFields,
  pinUrl,
  planPin,
  streamedJson,
  videoSource,
} from './pinterest-pin.js';

const HOUR_MS = 3_600_000;
/** How long before the due time a video may be uploaded (see above). */
export const PINTEREST_PREPARE_LEAD_MS = HOUR_MS;
const PREPARED_KEPT_MS = 6 * HOUR_MS;
/** When a processing video is looked at again, and how long it may process before the delivery fails. */
const PROCESSING: ProcessingSchedule = { firstMs: 5_000, longestMs: 60_000, deadlineMs: 60 * 60_000 };

export const NO_COMMENTS =
  'Pinterest has no way to post a comment through its API: the auto-comment is skipped.';

/** What the steps store (JSON in the store, read by any process): the uploaded video, if any. */
export interface PinterestState {
  step: 'prepare' | 'commit';
  mediaId: string | null;
  sinceMs: number;
  checks: number;
}

function readState(state: DeliveryJob['state']): PinterestState | undefined {
  const value = state as Partial<PinterestState>;
  if (value.step !== 'prepare' && value.step !== 'commit') return undefined;
  return {
    step: value.step,
    mediaId: typeof value.mediaId === 'string' && value.mediaId ? value.mediaId : null,
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
    checks: typeof value.checks === 'number' ? value.checks : 0,
  };
}

type MediaStatus = 'registered' | 'processing' | 'succeeded' | 'failed';

class PinterestPublisher implements Publisher {
  readonly name = 'pinterest';
  readonly idempotent = false;
  readonly prepareLeadMs = PINTEREST_PREPARE_LEAD_MS;
  private readonly api: PinterestApi;
  private readonly boardId: string;

  constructor(
    connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const { boardId, authRoot } = connection.settings;
    this.boardId = typeof boardId === 'string' && boardId ? boardId : connection.accountId;
    let known = [connection.secret];
    let keeper: PinterestToken;
    try {
      const held = new TokenKeeper({
        secret: connection.secret,
        hooks: async () => (await import('./pinterest-oauth.js')).pinterestOAuth,
        authRoot: typeof authRoot === 'string' ? authRoot : PINTEREST_AUTH_ROOT,
        platform: 'Pinterest',
        context,
      });
      keeper = { token: () => held.token(), refused: (token) => held.refused(token) };
      const tokens = tokensOf(connection.secret);
      known = [...known, tokens.accessToken, tokens.refreshToken ?? ''];
    } catch (error) {
      // Not the tokens of a sign-in: every step asks for a reconnect, with the reason.
      const expired = new SignInExpired((error as Error).message);
      keeper = { token: () => Promise.reject(expired), refused: () => Promise.reject(expired) };
    }
    const secrets = () => [...known, context.oauthClient?.()?.clientSecret ?? ''];
    const root = connection.endpoint.replace(/\/+$/, '');
    this.api = new PinterestApi(root, connection.account, keeper, context, secrets);
  }

  /** Uploads the video ahead of the due time: prepared once Pinterest has processed it. */
  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    let stage: PinterestStage = 'register';
    try {
      const { video } = planPin(job.content);
      const state: PinterestState = { step: 'prepare', mediaId: null, sinceMs: this.now(), checks: 0 };
      if (!video) return { ok: 'prepared', state: { ...state } };
      state.mediaId = await this.uploadVideo(job, video, (next) => {
        stage = next;
      });
      stage = 'read';
      return this.afterStatus(state, await this.status(state.mediaId));
    } catch (error) {
      return this.api.failure(error, stage);
    }
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    let stage: PinterestStage = 'register';
    try {
      const { video } = planPin(job.content);
      let state = readState(job.state);
      if (state?.mediaId && state.sinceMs + PREPARED_KEPT_MS < this.now()) state = undefined;
      if (!video) return await this.pin(job, null);
      if (!state?.mediaId) {
        const mediaId = await this.uploadVideo(job, video, (next) => {
          stage = next;
        });
        state = { step: 'commit', mediaId, sinceMs: this.now(), checks: 0 };
      }
      stage = 'read';
      return await this.commit({ ...state, step: 'commit' }, job);
    } catch (error) {
      return this.fail(error, stage);
    }
  }

  /** A video Pinterest is processing: for a prepare, prepared once done; for a commit, pinned. */
  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state?.mediaId) {
      return { ok: false, kind: 'refused', reason: 'The Pinterest delivery has no video to check.' };
    }
    try {
      const next = { ...state, checks: state.checks + 1 };
      if (state.step === 'prepare') return this.afterStatus(next, await this.status(state.mediaId));
      return await this.commit(next, job);
    } catch (error) {
      return this.fail(error, 'read');
    }
  }

  /**
   * A pin whose answer was lost: found on the board (published, with its URL), or absent (safe to pin
   * again: a video uploaded already stays in the state and is not uploaded again).
   */
  async confirm(job: DeliveryJob): Promise<ConfirmOutcome> {
    try {
      const lookup = await findPin(this.api, this.boardId, job, this.now());
      if ('found' in lookup) return { ok: true, externalId: lookup.found, url: pinUrl(lookup.found) };
      if ('absent' in lookup) return { ok: 'absent' };
      return { ok: false, kind: 'refused', reason: lookup.undecided };
    } catch (error) {
      return this.api.failure(error, 'lookup');
    }
  }

  /** Pinterest has no comment endpoint (API v5: pins are created, read, changed, saved, deleted). */
  async comment(_job: CommentJob): Promise<PublishOutcome> {
    return { ok: false, kind: 'refused', reason: NO_COMMENTS };
  }

  close(): Promise<void> {
    return this.api.close();
  }

  private now(): number {
    return this.context.clock.now();
  }

  /** A failure of the pin call is the pin's (unknown when unanswered); any other, the stage's. */
  private fail(error: unknown, stage: PinterestStage) {
    return error instanceof PinFailure
      ? this.api.failure(error.cause, 'pin')
      : this.api.failure(error, stage);
  }

  /** Registers the video (`POST /v5/media`) and sends its bytes to the address Pinterest gave. */
  private async uploadVideo(
    job: DeliveryJob,
    video: DeliveryJob['content']['media'][number],
    at: (stage: PinterestStage) => void,
  ): Promise<string> {
    at('register');
    const file = await this.context.loadMedia(job.brandId, video);
    try {
      const registered = await this.api.call('POST', '/v5/media', { json: { media_type: 'video' } });
      const json = (registered.json ?? {}) as Record<string, unknown>;
      const parameters = json.upload_parameters;
      if (
        typeof json.media_id !== 'string' ||
        typeof json.upload_url !== 'string' ||
        typeof parameters !== 'object' ||
        parameters === null
      ) {
        throw new Malformed(registered);
      }
      at('upload');
      await this.api.upload(
        json.upload_url,
        async () => {
          const form = new FormData();
          for (const [name, value] of Object.entries(parameters)) form.append(name, String(value));
          form.append('file', await file.blob(), file.name);
          return form;
        },
        file.size,
      );
      return json.media_id;
    } finally {
      await file.release();
    }
  }

  private async status(mediaId: string): Promise<{ status: MediaStatus }> {
    const answer = await this.api.call('GET', `/v5/media/${encodeURIComponent(mediaId)}`);
    const status = (answer.json as { status?: unknown } | undefined)?.status;
    if (status !== 'registered' && status !== 'processing' && status !== 'succeeded' && status !== 'failed') {
      throw new Malformed(answer);
    }
    return { status };
  }

  /** A prepare's next step by the video's status. */
  private afterStatus(state: PinterestState, media: { status: MediaStatus }): PrepareOutcome {
    if (media.status === 'failed') throw new NotForPinterest(PROCESSING_FAILED);
    if (media.status !== 'succeeded') return this.pending(state);
    return { ok: 'prepared', state: { ...state }, expiresAtMs: state.sinceMs + PREPARED_KEPT_MS };
  }

  /** The commit of a video pin, by the video's status. */
  private async commit(state: PinterestState, job: DeliveryJob): Promise<StepOutcome> {
    const media = await this.status(state.mediaId!);
    if (media.status === 'failed') throw new NotForPinterest(PROCESSING_FAILED);
    if (media.status !== 'succeeded') return this.pending(state);
    return this.pin(job, state.mediaId);
  }

  /** `POST /v5/pins`: the pin, with the uploaded video's id or the images. */
  private async pin(job: DeliveryJob, mediaId: string | null): Promise<PublishOutcome> {
    const plan = planPin(job.content);
    const loaded: MediaSource[] = [];
    try {
      let source: Record<string, unknown>;
      if (mediaId) {
        const [cover] = plan.images;
        const file = cover && !cover.url ? await this.load(job, cover, loaded) : undefined;
        source = videoSource(mediaId, {
          ...(cover?.url ? { url: cover.url } : {}),
          ...(file ? { file } : {}),
        });
      } else if (plan.imagesByUrl) {
        source = imageSource(
          plan.images.map((image) => image.url!),
          [],
        );
      } else {
        for (const image of plan.images) await this.load(job, image, loaded);
        source = imageSource([], loaded);
      }
      const fields = pinFields(this.boardId, job.content, source);
      const body = loaded.length > 0 ? streamedJson(fields) : undefined;
      let answer: Awaited<ReturnType<PinterestApi['call']>>;
      try {
        answer = await this.api.call(
          'POST',
          '/v5/pins',
          body ? { length: body.length, stream: body.body } : { json: fields },
        );
      } catch (error) {
        throw new PinFailure(error);
      }
      const id = (answer.json as { id?: unknown } | undefined)?.id;
      const pinId = typeof id === 'string' && id ? id : null;
      return {
        ok: true,
        externalId: pinId,
        url: pinId ? pinUrl(pinId) : null,
        ...limitOf(answer.headers, this.now()),
      };
    } finally {
      for (const file of loaded) await file.release();
    }
  }

  private async load(
    job: DeliveryJob,
    element: DeliveryJob['content']['media'][number],
    loaded: MediaSource[],
  ) {
    const file = await this.context.loadMedia(job.brandId, element);
    loaded.push(file);
    checkInlineImage(file);
    return file;
  }

  private pending(state: PinterestState): PendingOutcome {
    return processingPending(
      { ...state },
      PROCESSING,
      this.now(),
      'Pinterest is processing the video of the pin.',
    );
  }
}

const PROCESSING_FAILED =
  'Pinterest could not process the video (media status failed): check that it is an MP4 or MOV of 4 seconds to 15 minutes, then publish again.';

/** A failure of the pin call itself (classified as the pin: unknown when unanswered). */
class PinFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('pin failed');
  }
}

export const openPinterest: OpenConnector = (connection, context) =>
  new PinterestPublisher(connection, context);
