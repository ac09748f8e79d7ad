/**
 * The Instagram connector: a post becomes a media container (`POST /{ig-user}/media`,
 * instagram-post.ts says what each field becomes), published with `POST /{ig-user}/media_publish`;
 * its auto-comment `POST /{media}/comments`; its URL the media's `permalink`. Every call on the
 * connection's host (graph.facebook.com with Facebook Login, graph.instagram.com with Instagram Login)
 * at the Graph version of meta/graph.ts, with the connection's token: the Page's (no expiry) or the
 * Instagram Login token (60 days, renewed by the TokenKeeper before it expires).
 *
 * Instagram fetches each media file from a public address: `context.publicMediaUrl` gives one (a URL
 * element as it is, an uploaded file through serve's SOCIAL_PUBLISHER_PUBLIC_URL).
 *
 * Steps, never waiting inside a send: `prepare` creates the container ahead of the due time (instagram-
 * containers.ts; a carousel with a video after its items processed) (pending
 * while Meta processes it, `prepared` once FINISHED), so that the due second sends only the publish.
 * Meta keeps an unpublished container 24 hours (ig-container reference: `status_code` EXPIRED, "the
 * container was not published within 24 hours"): prepare runs at most an hour ahead and a container is
 * used for 23 hours, past that a new one is made. `deliver` reads the container's `status_code` first:
 * IN_PROGRESS → pending, ERROR → refused with Meta's `status`, EXPIRED → a new container, PUBLISHED →
 * published already by an earlier attempt (never twice), FINISHED → the account's publishing quota
 * (`content_publishing_limit`: refused, saying so, when it is spent), then the publish.
 *
 * Meta has no idempotency key: a publish whose answer is lost is `unknown`, and `confirm` reads the
 * container (PUBLISHED: sent; never published: absent, safe to publish again).
 */
import type {
  CheckOutcome,
  CommentJob,
  ConfirmOutcome,
  DeliveryJob,
  FailedOutcome,
  PendingOutcome,
  PrepareOutcome,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, OpenConnector } from '../../connector.js';
import {
  type ContainerPlatform,
  commitByStatus,
  containerPending,
  deliverByContainer,
  preparedByStatus,
  publishContainer,
} from '../meta/containers.js';
import { graphErrorOf, graphVersionOf, metaLimitOf, stillProcessing } from '../meta/graph.js';
import { connectionToken } from '../oauth-tokens.js';
import { PlatformApi, PlatformRefusal } from '../platform-api.js';
import { INSTAGRAM_HOOKS } from './instagram-account.js';
import {
  InstagramContainers,
  type InstagramState,
  idOf,
  readState,
  type Status,
} from './instagram-containers.js';
import { INSTAGRAM_AUTH_ROOT } from './instagram-oauth.js';
import { captionOf } from './instagram-post.js';

const HOUR_MS = 3_600_000;
export const INSTAGRAM_PREPARE_LEAD_MS = HOUR_MS;
/** A container is used this long after its creation, an hour short of Meta's 24. */
export const INSTAGRAM_CONTAINER_KEPT_MS = 23 * HOUR_MS;

type Stage = 'container' | 'read' | 'quota' | 'publish' | 'comment';

const STAGES = {
  container: { what: 'media container', repeatable: true },
  read: { what: 'read of the container', repeatable: true },
  quota: { what: 'read of the publishing limit', repeatable: true },
  publish: { what: 'post', repeatable: false },
  comment: { what: 'comment', repeatable: false },
} as const;

class InstagramPublisher implements Publisher {
  readonly name = 'instagram';
  readonly idempotent = false;
  readonly prepareLeadMs = INSTAGRAM_PREPARE_LEAD_MS;
  private readonly api: PlatformApi<Stage>;
  private readonly user: string;
  private readonly containers: InstagramContainers;
  private readonly platform: ContainerPlatform;

  constructor(
    connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const instagramLogin = connection.settings.login === 'instagram';
    const { token, secrets } = connectionToken(connection, {
      hooks: async () => (await import('./instagram-oauth.js')).instagramLoginOAuth,
      authRoot: INSTAGRAM_AUTH_ROOT,
      platform: 'Instagram',
      context,
    });
    this.user = encodeURIComponent(connection.accountId);
    this.api = new PlatformApi<Stage>({
      base: `${connection.endpoint.replace(/\/+$/, '')}/${graphVersionOf(connection.settings)}`,
      account: connection.account,
      // A Page token (Facebook Login) does not expire: a refusal is Meta's to explain, not to renew.
      token: instagramLogin ? token : { token: () => token.token() },
      context,
      secrets,
      hooks: INSTAGRAM_HOOKS,
      stages: STAGES,
      tokenRefused: (answer) => answer.status === 401 || graphErrorOf(answer)?.code === 190,
    });
    this.containers = new InstagramContainers(this.api, this.user, context);
    this.platform = {
      name: 'Instagram',
      account: connection.account,
      keptMs: INSTAGRAM_CONTAINER_KEPT_MS,
      fetchFailed: /2207052|fetch|download/i,
      log: context.log,
    };
  }

  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    try {
      const { state, status } = await this.containers.create(job, 'prepare');
      return this.afterStatus(state, status);
    } catch (error) {
      return this.api.failure(error, 'container');
    }
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    let stage: Stage = 'container';
    const steps = {
      progress: (state: InstagramState) => this.containers.progress(job, { ...state, step: 'commit' }),
      create: () => this.containers.create(job, 'commit'),
      commit: (state: InstagramState, status: Status) => this.commit(state, status),
    };
    try {
      return await deliverByContainer(readState(job.state), this.platform, this.now(), steps, (next) => {
        stage = next;
      });
    } catch (error) {
      return this.fail(error, stage);
    }
  }

  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state)
      return { ok: false, kind: 'refused', reason: 'The Instagram delivery has no container to check.' };
    try {
      const now = await this.containers.progress(job, { ...state, checks: state.checks + 1 });
      if (state.step === 'prepare') return this.afterStatus(now.state, now.status);
      return await this.commit(now.state, now.status);
    } catch (error) {
      return this.fail(error, 'read');
    }
  }

  /**
   * A publish whose answer was lost: the container says whether it was published (never published:
   * FINISHED, EXPIRED, ERROR, is absent, and publishing again cannot make a second post); the post's id
   * is then read from the account's recent media by its caption. Without a recorded container, the
   * account's media of the last 24 hours are read for the caption alone.
   */
  async confirm(job: DeliveryJob): Promise<ConfirmOutcome> {
    const state = readState(job.state);
    try {
      if (state && !state.containerId) return { ok: 'absent' }; // its carousel was never made
      if (state) {
        const status = await this.containers.status(state.containerId);
        if (status.code === 'IN_PROGRESS') return this.pending(state);
        if (status.code !== 'PUBLISHED') return { ok: 'absent' };
      }
      const found = await this.recentWithCaption(captionOf(job.content), state?.sinceMs);
      if (found) return { ok: true, externalId: found.id, url: found.permalink };
      return state ? { ok: true, externalId: null, url: null } : { ok: 'absent' };
    } catch (error) {
      return this.api.failure(error, 'read');
    }
  }

  /** The newest of the account's media with this caption, published since `sinceMs` (else a day). */
  private async recentWithCaption(caption: string, sinceMs = this.now() - 24 * HOUR_MS) {
    const answer = await this.api.call(
      'GET',
      `/${this.user}/media?fields=id,caption,permalink,timestamp&limit=25`,
    );
    const items = ((answer.json as { data?: unknown } | undefined)?.data ?? []) as Record<string, unknown>[];
    for (const item of Array.isArray(items) ? items : []) {
      const at = Date.parse(String(item.timestamp ?? '').replace(/\+0000$/, 'Z'));
      if (typeof item.id !== 'string' || (item.caption ?? '') !== caption) continue;
      if (!Number.isFinite(at) || at < sinceMs - 60_000) continue;
      return { id: item.id, permalink: typeof item.permalink === 'string' ? item.permalink : null };
    }
    return undefined;
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    if (!job.externalId)
      return { ok: false, kind: 'refused', reason: 'The Instagram post to comment on has no id.' };
    try {
      const answer = await this.api.call(
        'POST',
        `/${encodeURIComponent(job.externalId)}/comments`,
        () => new URLSearchParams({ message: job.comment }),
      );
      return { ok: true, externalId: idOf(answer.json), ...metaLimitOf(answer.headers, this.now()) };
    } catch (error) {
      return this.api.failure(error, 'comment');
    }
  }

  close(): Promise<void> {
    return this.api.close();
  }

  private fail(error: unknown, stage: Stage) {
    return error instanceof PublishFailure
      ? this.api.failure(error.cause, error.stage)
      : this.api.failure(error, stage);
  }

  private now(): number {
    return this.context.clock.now();
  }

  private afterStatus(state: InstagramState, status: Status): PrepareOutcome {
    return preparedByStatus(state, status, this.platform, this.now());
  }

  private commit(state: InstagramState, status: Status): Promise<StepOutcome> {
    return commitByStatus(state, status, this.platform, this.now(), async () => {
      const spent = await this.quotaSpent().catch((error) => {
        throw new PublishFailure(error, 'quota');
      });
      if (spent) return spent;
      try {
        return await this.publish(state.containerId);
      } catch (error) {
        // 9007, "Media ID is not available": published before Meta had it ready; publish again soon.
        if (error instanceof PlatformRefusal && stillProcessing(error.answer)) return this.pending(state);
        throw new PublishFailure(error, 'publish');
      }
    });
  }

  /**
   * The account's publishing limit (ig-user/content_publishing_limit: posts in a rolling 24 hours, a
   * carousel counting once; Meta's reference shows 50 and others report 25 or 100, so it is read, never
   * assumed): a wait that says so when it is spent, else undefined.
   */
  private async quotaSpent(): Promise<FailedOutcome | undefined> {
    const answer = await this.api.call(
      'GET',
      `/${this.user}/content_publishing_limit?fields=quota_usage,config`,
    );
    const [entry] = ((answer.json as { data?: unknown } | undefined)?.data ?? []) as {
      quota_usage?: unknown;
      config?: { quota_total?: unknown; quota_duration?: unknown };
    }[];
    const used = Number(entry?.quota_usage);
    const total = Number(entry?.config?.quota_total);
    if (!Number.isFinite(used) || !Number.isFinite(total) || total <= 0 || used < total) return undefined;
    const hours = Math.round(Number(entry?.config?.quota_duration ?? 86_400) / 3_600) || 24;
    // Meta says how many were published, not when the window frees: the post waits an hour at a time,
    // and the engine holds the account's other posts meanwhile (pre-flight tells new posts so).
    return {
      ok: false,
      kind: 'rate_limited',
      retryAfterMs: 3_600_000,
      reason: `Instagram's publishing limit of ${this.api.account} is spent: ${used} of ${total} posts in the last ${hours} hours (Meta's content_publishing_limit). The post waits until Instagram allows more.`,
    };
  }

  private publish(containerId: string): Promise<PublishOutcome> {
    return publishContainer(this.api, `/${this.user}/media_publish`, containerId, this.now());
  }

  private pending(state: InstagramState): PendingOutcome {
    return containerPending({ ...state }, 'Instagram', this.now());
  }
}

/** A failure of the publish call or the quota read before it (classified as that stage). */
class PublishFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly stage: Stage,
  ) {
    super(`${stage} failed`);
  }
}

export const openInstagram: OpenConnector = (connection, context) =>
  new InstagramPublisher(connection, context);
