/**
 * The Mastodon connector: a post becomes one status of the connected account, a comment a reply to it.
 *
 * Every status is created with an `Idempotency-Key` header (the job's `idempotencyKey`): Mastodon keeps
 * a key an hour per account and answers a repeat with the status the first request created, so sending
 * again after a timeout or a lease takeover publishes nothing twice. A status carries (statusBody, and
 * mastodonStatusText in domain/platform-rules.ts, where the pre-flight measures the same text) the
 * caption; the link a blank line below unless the caption has it; a poll's question unless the caption
 * asks it (Mastodon's polls have none of their own); the media, each described by the post's alt text;
 * the poll's options, single choice, open for its period. A quiz's correct option and explanation have
 * no Mastodon equivalent and are not sent. Visibility is the account's default.
 *
 * Media in steps, never waited for inside a send: `prepare` uploads them ahead of the due time
 * (`POST /api/v2/media`); a video Mastodon is still processing (202) makes the step `pending`, and
 * `check` asks again (`GET /api/v1/media/:id`, 206 until ready) a few seconds on. `deliver` (the commit)
 * posts the status with the prepared media; without a prepare it uploads them itself and, while one is
 * processing, answers `pending` too: `check` then posts the status. A repeated upload only leaves an
 * unattached file, which Mastodon deletes after a day (Scheduler::MediaCleanupScheduler), hence the
 * lead: media are prepared at most 6 hours ahead and kept as prepared for 20.
 */
import { Agent, FormData } from 'undici';
import type { PlatformContent, PlatformMedia } from '../../../domain/delivery.js';
import { mastodonStatusText } from '../../../domain/platform-rules.js';
import type {
  CheckOutcome,
  CommentJob,
  DeliveryJob,
  FailedOutcome,
  PendingOutcome,
  PreparedOutcome,
  PrepareOutcome,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, OpenConnector } from '../../connector.js';
import {
  callPlatform,
  type PlatformAnswer,
  type PlatformRequest,
  PlatformUnreachable,
} from '../../platform-http.js';
import { classifyHttpFailure, limitOf, unexpectedFailure } from '../http.js';
import { type ProcessingSchedule, processingPending } from '../processing.js';
import { MASTODON_HOOKS, mastodonOrigin } from './mastodon-account.js';

export {
  capabilitiesOfMastodon,
  type MastodonInstance,
  mastodonOrigin,
  verifyMastodon,
} from './mastodon-account.js';
/** The status text, composed where the pre-flight reads it too. */
export { mastodonStatusText };

const POLL_SECONDS = { '1d': 86_400, '3d': 259_200, '7d': 604_800 } as const;
const HOUR_MS = 3_600_000;

/** How long before the due time media may be uploaded: well within the day Mastodon keeps them. */
export const MASTODON_PREPARE_LEAD_MS = 6 * HOUR_MS;
/** How long uploaded media stay usable for the commit (Mastodon deletes unattached ones after 24 h). */
const PREPARED_KEPT_MS = 20 * HOUR_MS;
/** When a processing video is looked at again, and how long it may process before the delivery fails. */
const PROCESSING: ProcessingSchedule = { firstMs: 3_000, longestMs: 30_000, deadlineMs: 30 * 60_000 };

/**
 * What the steps store: the uploaded media's ids in the post's order, those still processing, whether
 * they were uploaded by `prepare` (ending in `prepared`) or by `deliver` (ending in the status), how
 * many checks were made and since when.
 */
export interface MastodonMediaState {
  step: 'prepare' | 'commit';
  mediaIds: string[];
  processing: string[];
  checks: number;
  sinceMs: number;
}

function readState(state: DeliveryJob['state']): MastodonMediaState | undefined {
  const { step, mediaIds, processing, checks, sinceMs } = state as Partial<MastodonMediaState>;
  const ids = (value: unknown): value is string[] =>
    Array.isArray(value) && value.every((id) => typeof id === 'string');
  if ((step !== 'prepare' && step !== 'commit') || !ids(mediaIds) || !ids(processing)) return undefined;
  return {
    step,
    mediaIds,
    processing,
    checks: typeof checks === 'number' ? checks : 0,
    sinceMs: typeof sinceMs === 'number' ? sinceMs : 0,
  };
}

function statusBody(content: PlatformContent, mediaIds: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = { status: mastodonStatusText(content) };
  if (mediaIds.length > 0) body.media_ids = mediaIds;
  if (content.poll) {
    // correctOptionIndex and explanation are not sent: Mastodon has no quizzes.
    body.poll = {
      options: content.poll.options,
      expires_in: POLL_SECONDS[content.poll.period],
      multiple: false,
    };
  }
  return body;
}

/** A non-2xx answer, thrown to the one place that classifies failures. */
class Refusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** `upload` (and checking one): nothing public happens yet, so an unanswered request may be sent again. */
type Stage = 'upload' | 'status';

class MastodonPublisher implements Publisher {
  readonly name = 'mastodon';
  readonly idempotent = true;
  readonly prepareLeadMs = MASTODON_PREPARE_LEAD_MS;
  private readonly origin: string;
  private readonly agent: Agent;

  constructor(
    private readonly connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    this.origin = mastodonOrigin(connection.endpoint);
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
  }

  /** Uploads the post's media: `prepared` with their ids, or `pending` while Mastodon processes one. */
  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    try {
      const uploaded = await this.uploadAll(job);
      if (uploaded.processing.length > 0) return this.pending(uploaded);
      return this.prepared(uploaded);
    } catch (error) {
      return this.failure(error, 'upload');
    }
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    let stage: Stage = 'upload';
    try {
      const prepared = readState(job.state);
      let state: MastodonMediaState;
      if (prepared) {
        const processing = await this.stillProcessing(prepared.processing);
        state = { ...prepared, step: 'commit', processing };
      } else {
        state = await this.uploadAll(job, 'commit');
      }
      if (state.processing.length > 0) return this.pending(state);
      stage = 'status';
      return await this.postStatus(statusBody(job.content, state.mediaIds), job.idempotencyKey);
    } catch (error) {
      return this.failure(error, stage);
    }
  }

  /** Asks again about the media still processing; then the prepare is done, or the status is posted. */
  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state) {
      return { ok: false, kind: 'refused', reason: 'The Mastodon delivery has no media step to check.' };
    }
    let stage: Stage = 'upload';
    try {
      const processing = await this.stillProcessing(state.processing);
      const next = { ...state, processing, checks: state.checks + 1 };
      if (processing.length > 0) return this.pending(next);
      if (next.step === 'prepare') return this.prepared(next);
      stage = 'status';
      return await this.postStatus(statusBody(job.content, next.mediaIds), job.idempotencyKey);
    } catch (error) {
      return this.failure(error, stage);
    }
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    if (!job.externalId) {
      return { ok: false, kind: 'refused', reason: 'The Mastodon status to reply to has no id.' };
    }
    try {
      const body = { status: job.comment, in_reply_to_id: job.externalId };
      return await this.postStatus(body, job.idempotencyKey);
    } catch (error) {
      return this.failure(error, 'status');
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private prepared(state: MastodonMediaState): PreparedOutcome {
    return {
      ok: 'prepared',
      state: { ...state },
      expiresAtMs: this.context.clock.now() + PREPARED_KEPT_MS,
    };
  }

  private pending(state: MastodonMediaState): PendingOutcome {
    const count = state.processing.length;
    const reason = `Mastodon is processing ${count === 1 ? 'a video' : `${count} videos`} of the post.`;
    return processingPending({ ...state }, PROCESSING, this.context.clock.now(), reason);
  }

  private async postStatus(body: Record<string, unknown>, idempotencyKey: string): Promise<PublishOutcome> {
    const answer = await this.send('POST', '/api/v1/statuses', JSON.stringify(body), {
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    });
    const status = (answer.json ?? {}) as Record<string, unknown>;
    return {
      ok: true,
      externalId: typeof status.id === 'string' ? status.id : null,
      url: typeof status.url === 'string' ? status.url : null,
      ...limitOf(answer.headers, this.context.clock.now()),
    };
  }

  /** Uploads every media element in order, reading each one only as it is sent. */
  private async uploadAll(
    job: DeliveryJob,
    step: MastodonMediaState['step'] = 'prepare',
  ): Promise<MastodonMediaState> {
    const state: MastodonMediaState = {
      step,
      mediaIds: [],
      processing: [],
      checks: 0,
      sinceMs: this.context.clock.now(),
    };
    for (const element of job.content.media) {
      const { id, processing } = await this.upload(job.brandId, element, job.content.alt);
      state.mediaIds.push(id);
      if (processing) state.processing.push(id);
    }
    return state;
  }

  /** Uploads one media element; a 202 means Mastodon processes it in the background. */
  private async upload(brandId: number, element: PlatformMedia, alt: string | undefined) {
    const file = await this.context.loadMedia(brandId, element);
    try {
      const form = new FormData();
      form.append('file', await file.blob(), file.name);
      if (alt) form.append('description', alt);
      const answer = await this.send('POST', '/api/v2/media', form);
      const id = (answer.json as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string') throw new Refusal({ ...answer, status: 502 });
      return { id, processing: answer.status === 202 };
    } finally {
      await file.release();
    }
  }

  /** The media of `ids` Mastodon is still processing: GET answers 206 until one is ready, then 200. */
  private async stillProcessing(ids: readonly string[]): Promise<string[]> {
    const still: string[] = [];
    for (const id of ids) {
      const answer = await this.send('GET', `/api/v1/media/${encodeURIComponent(id)}`);
      if (answer.status === 206) still.push(id);
    }
    return still;
  }

  /** One request to the instance; a non-2xx answer is thrown as a Refusal. */
  private async send(
    method: 'GET' | 'POST',
    path: string,
    body?: PlatformRequest['body'],
    headers: Record<string, string> = {},
  ): Promise<PlatformAnswer> {
    const answer = await callPlatform(`${this.origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.connection.secret}`,
        accept: 'application/json',
        'user-agent': this.context.userAgent,
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
      timeoutMs: this.context.timeoutMs,
      dispatcher: this.agent,
      secrets: [this.connection.secret],
    });
    if (answer.status < 200 || answer.status > 299) throw new Refusal(answer);
    return answer;
  }

  /** Every way a step can fail, turned into the kinds the engine acts on (connectors/http.ts decides). */
  private failure(error: unknown, stage: Stage): FailedOutcome {
    const what = stage === 'upload' ? 'media upload' : 'status';
    const secrets = [this.connection.secret];
    if (error instanceof Refusal || error instanceof PlatformUnreachable) {
      return classifyHttpFailure(error instanceof Refusal ? error.answer : error, MASTODON_HOOKS, {
        what,
        address: this.origin,
        account: this.connection.account,
        nowMs: this.context.clock.now(),
        secrets,
        repeatable: stage === 'upload',
      });
    }
    return unexpectedFailure(error, {
      platform: 'Mastodon',
      what,
      account: this.connection.account,
      harmless: stage === 'upload',
      secrets,
      log: this.context.log,
    });
  }
}

export const openMastodon: OpenConnector = (connection, context) =>
  new MastodonPublisher(connection, context);
