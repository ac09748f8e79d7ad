/**
 * The LinkedIn connector: a post becomes one post of the connected member or page through the
 * versioned Posts API (`POST /rest/posts`, linkedin-post.ts), a comment a comment on it
 * (`/rest/socialActions/{urn}/comments`).
 *
 * LinkedIn has no idempotency key (`idempotent: false`), and this app cannot read a member's posts back
 * (`r_member_social` is a restricted permission): a commit whose answer is lost is never sent again,
 * the delivery fails saying to look at the feed.
 *
 * The access token (oauth-tokens.ts) is refreshed ahead of its expiry when the app has refresh tokens
 * (approved partners only), or else the channel asks for a new sign-in; a 401 gets one retry with a
 * refreshed token.
 *
 * Media in steps, never waited for inside a send (linkedin-media.ts): `prepare` uploads them ahead of
 * the due time; a video LinkedIn is still processing makes the step `pending`, and `check` asks again.
 * `deliver` posts with the prepared media, or uploads them itself first. LinkedIn documents no time
 * after which an uploaded, unused image, video or document is dropped; the upload URLs it hands out
 * expire within a day (`uploadUrlExpiresAt`). Media are therefore prepared at most an hour ahead and
 * kept as prepared for 6 hours, well within any such limit; past that they are uploaded again.
 */
import { Agent } from 'undici';
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
import { headerValue, hideSecrets, type PlatformAnswer, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, limitOf, unexpectedFailure } from '../http.js';
import { SignInExpired, TokenKeeper, tokensOf } from '../oauth-tokens.js';
import { type ProcessingSchedule, processingPending } from '../processing.js';
import { callLinkedIn, LINKEDIN_AUTH_ROOT, LINKEDIN_VERSION } from './linkedin-api.js';
import { LINKEDIN_HOOKS } from './linkedin-failures.js';
import { type LinkedInSend, Malformed, uploadMedia, videoStatus } from './linkedin-media.js';
import { escapeLittleText, type LinkedInMedia, postBody, postUrl } from './linkedin-post.js';

const HOUR_MS = 3_600_000;
/** How long before the due time media may be uploaded (see above). */
export const LINKEDIN_PREPARE_LEAD_MS = HOUR_MS;
const PREPARED_KEPT_MS = 6 * HOUR_MS;
/** When a processing video is looked at again, and how long it may process before the delivery fails. */
const PROCESSING: ProcessingSchedule = { firstMs: 5_000, longestMs: 60_000, deadlineMs: 60 * 60_000 };

/** What the steps store: the uploaded media, the videos still processing, and since when. */
export interface LinkedInState {
  step: 'prepare' | 'commit';
  media: LinkedInMedia[];
  processing: string[];
  checks: number;
  sinceMs: number;
}

function readState(state: DeliveryJob['state']): LinkedInState | undefined {
  const { step, media, processing, checks, sinceMs } = state as Partial<LinkedInState>;
  if ((step !== 'prepare' && step !== 'commit') || !Array.isArray(media) || !Array.isArray(processing)) {
    return undefined;
  }
  return { step, media, processing, checks: checks ?? 0, sinceMs: sinceMs ?? 0 };
}

/** A non-2xx answer, thrown to the one place that classifies failures. */
class Refusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

type Stage = 'upload' | 'post' | 'comment';

class LinkedInPublisher implements Publisher {
  readonly name = 'linkedin';
  readonly idempotent = false;
  readonly prepareLeadMs = LINKEDIN_PREPARE_LEAD_MS;
  private readonly agent: Agent;
  private readonly author: string;
  private readonly version: string;
  private keeper: TokenKeeper | undefined;

  constructor(
    private readonly connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
    const { author, linkedinVersion } = connection.settings;
    this.author = typeof author === 'string' && author ? author : connection.accountId;
    this.version =
      typeof linkedinVersion === 'string' && linkedinVersion ? linkedinVersion : LINKEDIN_VERSION;
  }

  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    try {
      const state = await this.uploadAll(job, 'prepare');
      return state.processing.length > 0 ? this.pending(state) : this.prepared(state);
    } catch (error) {
      return this.failure(error, 'upload');
    }
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    let stage: Stage = 'upload';
    try {
      const prepared = readState(job.state);
      const state = prepared
        ? {
            ...prepared,
            step: 'commit' as const,
            processing: await this.stillProcessing(prepared.processing),
          }
        : await this.uploadAll(job, 'commit');
      if (state.processing.length > 0) return this.pending(state);
      stage = 'post';
      return await this.createPost(job, state.media);
    } catch (error) {
      return this.failure(error, stage);
    }
  }

  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state)
      return { ok: false, kind: 'refused', reason: 'The LinkedIn delivery has no media step to check.' };
    let stage: Stage = 'upload';
    try {
      const next = {
        ...state,
        processing: await this.stillProcessing(state.processing),
        checks: state.checks + 1,
      };
      if (next.processing.length > 0) return this.pending(next);
      if (next.step === 'prepare') return this.prepared(next);
      stage = 'post';
      return await this.createPost(job, next.media);
    } catch (error) {
      return this.failure(error, stage);
    }
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    if (!job.externalId)
      return { ok: false, kind: 'refused', reason: 'The LinkedIn post to comment on has no id.' };
    try {
      const answer = await this.send({
        method: 'POST',
        url: `/rest/socialActions/${encodeURIComponent(job.externalId)}/comments`,
        json: {
          actor: this.author,
          object: job.externalId,
          message: { text: escapeLittleText(job.comment) },
        },
      });
      const comment = (answer.json ?? {}) as Record<string, unknown>;
      const id =
        headerValue(answer.headers, 'x-restli-id') ?? (typeof comment.id === 'string' ? comment.id : null);
      return { ok: true, externalId: id, url: postUrl(job.externalId) };
    } catch (error) {
      return this.failure(error, 'comment');
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async createPost(job: DeliveryJob, media: readonly LinkedInMedia[]): Promise<PublishOutcome> {
    const answer = await this.send({
      method: 'POST',
      url: '/rest/posts',
      json: postBody(this.author, job.content, media),
    });
    const urn =
      headerValue(answer.headers, 'x-restli-id') ?? headerValue(answer.headers, 'x-linkedin-id') ?? null;
    return {
      ok: true,
      externalId: urn,
      url: urn ? postUrl(urn) : null,
      ...limitOf(answer.headers, this.context.clock.now()),
    };
  }

  private async uploadAll(job: DeliveryJob, step: LinkedInState['step']): Promise<LinkedInState> {
    const state: LinkedInState = {
      step,
      media: [],
      processing: [],
      checks: 0,
      sinceMs: this.context.clock.now(),
    };
    for (const element of job.content.media) {
      const file = await this.context.loadMedia(job.brandId, element);
      try {
        const { processing, ...uploaded } = await uploadMedia(this.send, this.author, file);
        state.media.push(uploaded);
        if (processing) state.processing.push(uploaded.urn);
      } finally {
        await file.release();
      }
    }
    return state;
  }

  /** The videos of `urns` LinkedIn has not made AVAILABLE yet; a failed one is refused. */
  private async stillProcessing(urns: readonly string[]): Promise<string[]> {
    const still: string[] = [];
    for (const urn of urns) {
      const status = await videoStatus(this.send, urn);
      if (status.failed) throw new ProcessingFailed(status.failed);
      if (!status.ready) still.push(urn);
    }
    return still;
  }

  private prepared(state: LinkedInState): PreparedOutcome {
    return { ok: 'prepared', state: { ...state }, expiresAtMs: this.context.clock.now() + PREPARED_KEPT_MS };
  }

  private pending(state: LinkedInState): PendingOutcome {
    const reason = 'LinkedIn is processing the video of the post.';
    return processingPending({ ...state }, PROCESSING, this.context.clock.now(), reason);
  }

  private tokens(): TokenKeeper {
    this.keeper ??= new TokenKeeper({
      secret: this.connection.secret,
      hooks: async () => (await import('./linkedin-oauth.js')).linkedinOAuth,
      authRoot:
        typeof this.connection.settings.authRoot === 'string'
          ? this.connection.settings.authRoot
          : LINKEDIN_AUTH_ROOT,
      platform: 'LinkedIn',
      context: this.context,
    });
    return this.keeper;
  }

  /** One call with a fresh token; a 401 is retried once with the token refreshed, if it can be. */
  private readonly send: LinkedInSend = async (call) => {
    let keeper: TokenKeeper;
    try {
      keeper = this.tokens();
    } catch (error) {
      throw new SignInExpired((error as Error).message);
    }
    const { bytes, ...request } = call;
    const attempt = async (token: string) =>
      callLinkedIn(this.connection.endpoint, {
        ...request,
        ...(bytes ? { bytes: await bytes() } : {}),
        token,
        version: this.version,
        timeoutMs: this.context.timeoutMs,
        userAgent: this.context.userAgent,
        dispatcher: this.agent,
        secrets: this.secrets(),
      });
    const token = await keeper.token();
    let answer = await attempt(token);
    if (answer.status === 401) {
      let fresh: string;
      try {
        fresh = await keeper.refused(token);
      } catch (error) {
        if (error instanceof SignInExpired) throw new Refusal(answer);
        throw error;
      }
      answer = await attempt(fresh);
    }
    if (answer.status < 200 || answer.status > 299) throw new Refusal(answer);
    return answer;
  };

  /** Every token this connector may hold, never to appear in a reason or a log line. */
  private secrets(): string[] {
    const all = [this.connection.secret];
    try {
      const tokens = tokensOf(this.connection.secret);
      all.push(tokens.accessToken, ...(tokens.refreshToken ? [tokens.refreshToken] : []));
    } catch {
      // An unreadable secret is itself the only secret.
    }
    return all;
  }

  /** Every way a step can fail, turned into the kinds the engine acts on (connectors/http.ts decides). */
  private failure(error: unknown, stage: Stage): FailedOutcome {
    const what = { upload: 'media upload', post: 'post', comment: 'comment' }[stage];
    const secrets = this.secrets();
    if (error instanceof SignInExpired) {
      return { ok: false, kind: 'reconnect', reason: hideSecrets(error.message, secrets) };
    }
    if (error instanceof ProcessingFailed) {
      return { ok: false, kind: 'refused', reason: `LinkedIn could not process the video: ${error.message}` };
    }
    if (error instanceof Refusal || error instanceof Malformed || error instanceof PlatformUnreachable) {
      const failure =
        error instanceof PlatformUnreachable
          ? error
          : error instanceof Malformed
            ? { ...error.answer, status: 502 }
            : error.answer;
      return classifyHttpFailure(failure, LINKEDIN_HOOKS, {
        what,
        address: this.connection.endpoint,
        account: this.connection.account,
        nowMs: this.context.clock.now(),
        secrets,
        repeatable: stage === 'upload',
      });
    }
    return unexpectedFailure(error, {
      platform: 'LinkedIn',
      what,
      account: this.connection.account,
      harmless: stage === 'upload',
      secrets,
      log: this.context.log,
    });
  }
}

/** LinkedIn gave up processing a video (PROCESSING_FAILED). */
class ProcessingFailed extends Error {}

export const openLinkedIn: OpenConnector = (connection, context) =>
  new LinkedInPublisher(connection, context);
