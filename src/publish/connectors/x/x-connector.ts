/**
 * The X connector: a post becomes one post of the signed-in account (`POST /2/tweets`), its
 * auto-comment a reply to it (x-post.ts says what each field becomes), its media uploaded first
 * (x-media.ts).
 *
 * Steps, never waiting inside a send: `prepare` uploads the media ahead of the due time; a video X is
 * still processing makes it `pending`, and `check` asks STATUS again when X said to. `deliver` (the
 * commit) posts with the prepared media; without a prepare it uploads them itself and, while X
 * processes one, answers `pending`: `check` then answers `prepared`, and the engine commits again with
 * the ready media. So a post is only ever sent by `deliver`, whose unknown outcome the engine never
 * repeats blindly: X has no idempotency key. `confirm` looks for the post among the account's recent
 * ones (`GET /2/users/:id/tweets`): the same text (and media), created since the delivery fell due.
 *
 * The access token is the connection's OAuth tokens, kept fresh by a TokenKeeper (oauth-tokens.ts).
 */
import type {
  CheckOutcome,
  CommentJob,
  ConfirmOutcome,
  DeliveryJob,
  PendingOutcome,
  PreparedOutcome,
  PrepareOutcome,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, MediaSource, OpenConnector } from '../../connector.js';
import { limitOf } from '../http.js';
import { connectionToken } from '../oauth-tokens.js';
import { type XApi, type XStage, xApi } from './x-api.js';
import { describeMedia, mediaCategoryOf, processingOf, uploadMedia } from './x-media.js';
import { findOurPost, mediaRefusal, postBody, replyBody, timelineOf } from './x-post.js';

export { capabilitiesOfX, verifyX, X_HOOKS, xSaid } from './x-account.js';

const HOUR_MS = 3_600_000;
/**
 * How long before the due time media may be uploaded: X keeps an unattached upload for
 * `expires_after_secs` (86,400 s in the examples of docs.x.com/x-api/media/upload-media), so well
 * within that day.
 */
export const X_PREPARE_LEAD_MS = 6 * HOUR_MS;
/** How long prepared media are used when X did not say when they expire; an hour kept as margin. */
const PREPARED_KEPT_MS = 20 * HOUR_MS;
const EXPIRY_MARGIN_MS = HOUR_MS;
/** How long a video may process before the delivery fails. */
const PROCESSING_DEADLINE_MS = 30 * 60_000;
/** How far before the due time (another process's clock) a post of the delivery may have been created. */
const CLOCK_SLACK_MS = 10 * 60_000;

/** What the steps store (JSON in the store, read by any process). */
export interface XMediaState {
  step: 'prepare' | 'commit';
  mediaIds: string[];
  mediaKeys: string[];
  processing: string[];
  checks: number;
  sinceMs: number;
  /** When the first upload expires unattached (UTC ms); null when X did not say. */
  expiresAtMs: number | null;
  /** When X asked to be asked again. */
  checkAfterMs: number;
}

function readState(state: DeliveryJob['state']): XMediaState | undefined {
  const value = state as Partial<XMediaState>;
  const strings = (list: unknown): list is string[] =>
    Array.isArray(list) && list.every((item) => typeof item === 'string');
  if (value.step !== 'prepare' && value.step !== 'commit') return undefined;
  if (!strings(value.mediaIds) || !strings(value.processing)) return undefined;
  return {
    step: value.step,
    mediaIds: value.mediaIds,
    mediaKeys: strings(value.mediaKeys) ? value.mediaKeys : [],
    processing: value.processing,
    checks: typeof value.checks === 'number' ? value.checks : 0,
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
    expiresAtMs: typeof value.expiresAtMs === 'number' ? value.expiresAtMs : null,
    checkAfterMs: typeof value.checkAfterMs === 'number' ? value.checkAfterMs : 5_000,
  };
}

/** A failure that is not X's answer: refused before anything is sent. */
class NotForX extends Error {}

class XPublisher implements Publisher {
  readonly name = 'x';
  /** X has no idempotency key: a post whose outcome is unknown is confirmed, never resent blindly. */
  readonly idempotent = false;
  readonly prepareLeadMs = X_PREPARE_LEAD_MS;
  private readonly api: XApi;
  private readonly username: string;

  constructor(
    private readonly connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const { username } = connection.settings;
    const { token, secrets } = connectionToken(connection, {
      hooks: async () => (await import('./x-oauth.js')).xOAuth,
      authRoot: 'https://x.com',
      platform: 'X',
      context,
    });
    this.username = typeof username === 'string' ? username : connection.account.replace(/^@/, '');
    this.api = xApi(connection.endpoint.replace(/\/+$/, ''), connection.account, token, context, secrets);
  }

  /** Uploads the post's media ahead of the due time: `prepared`, or `pending` while X processes one. */
  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    try {
      const state = await this.uploadAll(job, 'prepare');
      return state.processing.length > 0 ? this.pending(state) : this.prepared(state);
    } catch (error) {
      return this.failed(error, 'upload');
    }
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    let stage: XStage = 'upload';
    try {
      let state = readState(job.state);
      if (state && state.expiresAtMs !== null && state.expiresAtMs - EXPIRY_MARGIN_MS < this.now()) {
        state = undefined;
      }
      if (state && state.processing.length > 0) state = await this.askProcessing(state);
      state ??= await this.uploadAll(job, 'commit');
      if (state.processing.length > 0) return this.pending({ ...state, step: 'commit' });
      stage = 'post';
      const answer = await this.api.json('POST', '/2/tweets', postBody(job.content, state.mediaIds));
      return this.sent(answer);
    } catch (error) {
      return this.failed(error, stage);
    }
  }

  /** Asks X about the media still processing; once ready, the commit may go (`prepared`). */
  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state) return { ok: false, kind: 'refused', reason: 'The X delivery has no media step to check.' };
    try {
      const next = await this.askProcessing({ ...state, checks: state.checks + 1 });
      return next.processing.length > 0 ? this.pending(next) : this.prepared(next);
    } catch (error) {
      return this.failed(error, 'upload');
    }
  }

  /** Was the post whose answer was lost published? Read back from the account's recent posts. */
  async confirm(job: DeliveryJob): Promise<ConfirmOutcome> {
    const state = readState(job.state);
    const since = Math.min(job.dueAtMs, this.now()) - CLOCK_SLACK_MS;
    const query = new URLSearchParams({
      max_results: '100',
      start_time: new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      'tweet.fields': 'created_at,attachments,referenced_tweets',
    });
    try {
      const path = `/2/users/${encodeURIComponent(this.connection.accountId)}/tweets?${query}`;
      const answer = await this.api.call('GET', path);
      const found = findOurPost(timelineOf(answer.json), job.content, state?.mediaKeys ?? []);
      if (!found) return { ok: 'absent' };
      return {
        ok: true,
        externalId: found.id,
        url: this.urlOf(found.id),
        ...limitOf(answer.headers, this.now()),
      };
    } catch (error) {
      return this.failed(error, 'read');
    }
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    if (!job.externalId) return { ok: false, kind: 'refused', reason: 'The X post to reply to has no id.' };
    try {
      return this.sent(await this.api.json('POST', '/2/tweets', replyBody(job.comment, job.externalId)));
    } catch (error) {
      return this.failed(error, 'reply');
    }
  }

  close(): Promise<void> {
    return this.api.close();
  }

  private now(): number {
    return this.context.clock.now();
  }

  private urlOf(id: string): string {
    return `https://x.com/${this.username}/status/${id}`;
  }

  private sent(answer: { json: unknown; headers: Record<string, string | string[] | undefined> }) {
    const id = ((answer.json ?? {}) as { data?: { id?: unknown } }).data?.id;
    const externalId = typeof id === 'string' ? id : null;
    return {
      ok: true as const,
      externalId,
      url: externalId === null ? null : this.urlOf(externalId),
      ...limitOf(answer.headers, this.now()),
    };
  }

  private failed(error: unknown, stage: XStage) {
    if (error instanceof NotForX)
      return { ok: false as const, kind: 'refused' as const, reason: error.message };
    return this.api.failure(error, stage);
  }

  /** Uploads every media element in the post's order, each read from disk only as it is sent. */
  private async uploadAll(job: DeliveryJob, step: XMediaState['step']): Promise<XMediaState> {
    const state: XMediaState = {
      step,
      mediaIds: [],
      mediaKeys: [],
      processing: [],
      checks: 0,
      sinceMs: this.now(),
      expiresAtMs: null,
      checkAfterMs: 0,
    };
    const files: MediaSource[] = [];
    try {
      for (const element of job.content.media) files.push(await this.context.loadMedia(job.brandId, element));
      const refusal = mediaRefusal(files.map((file) => file.type));
      if (refusal) throw new NotForX(refusal);
      for (const file of files) {
        const uploaded = await uploadMedia(this.api, file, this.now());
        if (job.content.alt && mediaCategoryOf(file.type) !== 'tweet_video') {
          await describeMedia(this.api, uploaded.id, job.content.alt, this.context.log);
        }
        state.mediaIds.push(uploaded.id);
        if (uploaded.mediaKey) state.mediaKeys.push(uploaded.mediaKey);
        if (uploaded.processing) state.processing.push(uploaded.id);
        state.checkAfterMs = Math.max(state.checkAfterMs, uploaded.checkAfterMs);
        if (uploaded.expiresAtMs !== null) {
          state.expiresAtMs = Math.min(state.expiresAtMs ?? uploaded.expiresAtMs, uploaded.expiresAtMs);
        }
      }
      return state;
    } finally {
      await Promise.all(files.map((file) => file.release()));
    }
  }

  /** The state after asking X about each upload still processing; one that failed refuses the post. */
  private async askProcessing(state: XMediaState): Promise<XMediaState> {
    const processing: string[] = [];
    let checkAfterMs = 0;
    for (const id of state.processing) {
      const status = await processingOf(this.api, id);
      if (status.state === 'failed') {
        throw new NotForX(`X could not process a video of the post (${status.said}): check its format.`);
      }
      if (status.state === 'processing') {
        processing.push(id);
        checkAfterMs = Math.max(checkAfterMs, status.checkAfterMs);
      }
    }
    return { ...state, processing, checkAfterMs };
  }

  private prepared(state: XMediaState): PreparedOutcome {
    const expiresAtMs =
      state.expiresAtMs === null ? this.now() + PREPARED_KEPT_MS : state.expiresAtMs - EXPIRY_MARGIN_MS;
    return { ok: 'prepared', state: { ...state }, expiresAtMs };
  }

  private pending(state: XMediaState): PendingOutcome {
    const count = state.processing.length;
    return {
      ok: 'pending',
      state: { ...state },
      checkAtMs: this.now() + Math.max(1_000, state.checkAfterMs),
      reason: `X is processing ${count === 1 ? 'a video' : `${count} videos`} of the post.`,
      deadlineAtMs: state.sinceMs + PROCESSING_DEADLINE_MS,
    };
  }
}

export const openX: OpenConnector = (connection, context) => new XPublisher(connection, context);
