/**
 * The Threads connector: a post becomes a media container (`POST /me/threads`, threads-post.ts says
 * what each field becomes), published with `POST /me/threads_publish`; its auto-comment a reply
 * (a container with `reply_to_id`, published the same way). Every call with the long-lived token,
 * renewed by the TokenKeeper before it expires (60 days).
 *
 * Threads fetches each media file itself from a public address: `context.publicMediaUrl` gives one
 * (a URL element as it is, an uploaded file through serve's SOCIAL_PUBLISHER_PUBLIC_URL); an uploaded
 * file without one is refused with that reason.
 *
 * Steps, never waiting inside a send: `prepare` creates the container ahead of the due time (pending
 * while Meta processes it, `prepared` once FINISHED), so that the due second sends only the publish.
 * Meta keeps an unpublished container 24 hours ("EXPIRED — the container was not published within 24
 * hours", developers.facebook.com/documentation/threads/troubleshooting): prepare runs at most an hour
 * ahead and a container is used for 23 hours, past that a new one is made. `deliver` reads the
 * container's status first (`GET /{container}?fields=status,error_message`): IN_PROGRESS → pending
 * (check again later: Meta suggests once a minute, for 5 minutes), ERROR → refused with Meta's
 * `error_message`, EXPIRED → a new container, PUBLISHED → already published by an earlier attempt
 * (never published twice: Meta refuses a second publish of a container), FINISHED → publish.
 *
 * Meta has no idempotency key: a publish whose answer is lost is never sent again (`unknown`).
 */
import type {
  CheckOutcome,
  CommentJob,
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
  type ContainerStatus,
  commitByStatus,
  containerPending,
  deliverByContainer,
  idOf,
  preparedByStatus,
  publishContainer,
  readContainerStatus,
} from '../meta/containers.js';
import { graphErrorOf } from '../meta/graph.js';
import { connectionToken } from '../oauth-tokens.js';
import { THREADS_RENEW_AHEAD_MS } from './index.js';
import { THREADS_API_VERSION } from './threads-account.js';
import { NotForThreads, ThreadsApi, ThreadsRefusal, type ThreadsStage } from './threads-api.js';
import { THREADS_AUTH_ROOT } from './threads-oauth.js';
import { checkText, childForm, isVideo, postForm, type ThreadsMedia, textOf } from './threads-post.js';

const HOUR_MS = 3_600_000;
/** How long before the due time the container may be created (see above). */
export const THREADS_PREPARE_LEAD_MS = HOUR_MS;
/** A container is used this long after its creation, an hour short of Meta's 24. */
export const THREADS_CONTAINER_KEPT_MS = 23 * HOUR_MS;

/** What the steps store (JSON in the store, read by any process). */
export interface ThreadsState {
  step: 'prepare' | 'commit';
  containerId: string;
  sinceMs: number;
  checks: number;
}

function readState(state: DeliveryJob['state']): ThreadsState | undefined {
  const value = state as Partial<ThreadsState>;
  if (value.step !== 'prepare' && value.step !== 'commit') return undefined;
  if (typeof value.containerId !== 'string' || !value.containerId) return undefined;
  return {
    step: value.step,
    containerId: value.containerId,
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
    checks: typeof value.checks === 'number' ? value.checks : 0,
  };
}

class ThreadsPublisher implements Publisher {
  readonly name = 'threads';
  /** Meta has no idempotency key: a post whose outcome is unknown is never resent blindly. */
  readonly idempotent = false;
  readonly prepareLeadMs = THREADS_PREPARE_LEAD_MS;
  private readonly api: ThreadsApi;
  private readonly platform: ContainerPlatform;

  constructor(
    connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const root = connection.endpoint.replace(/\/+$/, '');
    const { token, secrets } = connectionToken(connection, {
      hooks: async () => (await import('./threads-oauth.js')).threadsOAuth,
      authRoot: THREADS_AUTH_ROOT,
      platform: 'Threads',
      renewAheadMs: THREADS_RENEW_AHEAD_MS,
      context,
    });
    // A renewal that fails keeps Meta's own refusal (code 190 and its reason) for the classification.
    const keeper = {
      token: () => token.token(),
      refused: (refused: string) => token.refused(refused).catch(() => refused),
    };
    this.api = new ThreadsApi(`${root}/${THREADS_API_VERSION}`, connection.account, keeper, context, secrets);
    this.platform = {
      name: 'Threads',
      account: connection.account,
      keptMs: THREADS_CONTAINER_KEPT_MS,
      fetchFailed: /DOWNLOAD/,
      log: context.log,
    };
  }

  /** Creates the post's container ahead of the due time: prepared once Meta has processed it. */
  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    try {
      const state = await this.createContainer(job, 'prepare');
      return await this.afterStatus(state, await this.status(state.containerId));
    } catch (error) {
      return this.api.failure(error, 'container');
    }
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    let stage: ThreadsStage = 'container';
    const withStatus = async (state: ThreadsState) => ({
      state: { ...state, step: 'commit' as const },
      status: await this.status(state.containerId),
    });
    const steps = {
      progress: withStatus,
      create: async () => withStatus(await this.createContainer(job, 'commit')),
      commit: (state: ThreadsState, status: ContainerStatus) => this.commit(state, status),
    };
    try {
      return await deliverByContainer(readState(job.state), this.platform, this.now(), steps, (next) => {
        stage = next;
      });
    } catch (error) {
      return this.fail(error, stage);
    }
  }

  /** A container Meta is processing: for a prepare, prepared once done; for a commit, published. */
  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state)
      return { ok: false, kind: 'refused', reason: 'The Threads delivery has no container to check.' };
    try {
      const next = { ...state, checks: state.checks + 1 };
      const status = await this.status(state.containerId);
      if (state.step === 'prepare') return this.afterStatus(next, status);
      return await this.commit(next, status);
    } catch (error) {
      return this.fail(error, 'read');
    }
  }

  /** The auto-comment: a reply container (text) to the post, published at once when Meta has it ready. */
  async comment(job: CommentJob): Promise<PublishOutcome> {
    if (!job.externalId)
      return { ok: false, kind: 'refused', reason: 'The Threads post to reply to has no id.' };
    let stage: ThreadsStage = 'container';
    try {
      checkText(job.comment);
      const form = new URLSearchParams({
        media_type: 'TEXT',
        text: job.comment,
        reply_to_id: job.externalId,
      });
      const created = await this.api.call('POST', '/me/threads', () => form);
      const containerId = idOf(created.json);
      if (!containerId) throw new NotForThreads('Threads answered the reply container without an id.');
      const status = await this.status(containerId);
      if (status.code !== 'FINISHED') {
        return {
          ok: false,
          kind: status.code === 'IN_PROGRESS' ? 'transient' : 'refused',
          reason: `Threads did not make the reply ready (${status.code}${status.said ? `: ${status.said}` : ''}).`,
        };
      }
      stage = 'comment';
      return await this.publish(containerId);
    } catch (error) {
      return this.api.failure(error, stage);
    }
  }

  close(): Promise<void> {
    return this.api.close();
  }

  /** A failure of the publish call is the post's; any other, the stage's. */
  private fail(error: unknown, stage: ThreadsStage) {
    return error instanceof PublishFailure
      ? this.api.failure(error.cause, 'publish')
      : this.api.failure(error, stage);
  }

  private now(): number {
    return this.context.clock.now();
  }

  /** The public addresses of the post's files; an uploaded file without one is refused. */
  private async mediaOf(job: DeliveryJob): Promise<ThreadsMedia[]> {
    const media: ThreadsMedia[] = [];
    for (const element of job.content.media) {
      const url = element.url ?? (await this.context.publicMediaUrl?.(job.brandId, element));
      if (!url) {
        throw new NotForThreads(
          'Threads fetches every media file from a public address, and this server has none for an uploaded file: run serve with SOCIAL_PUBLISHER_PUBLIC_URL set to its public https address (or give the file as a public URL).',
        );
      }
      media.push({ url, video: isVideo(element.type, url) });
    }
    return media;
  }

  /** The carousel's children (when several files), then the post's container: its id in a state. */
  private async createContainer(job: DeliveryJob, step: ThreadsState['step']): Promise<ThreadsState> {
    const media = await this.mediaOf(job);
    checkText(textOf(job.content));
    postForm(job, media, []); // refuses what Threads would refuse before any container is made
    const children: string[] = [];
    if (media.length > 1) {
      for (const file of media) {
        const child = idOf((await this.api.call('POST', '/me/threads', () => childForm(file))).json);
        if (!child) throw new NotForThreads('Threads answered a carousel item without an id.');
        children.push(child);
      }
    }
    const form = postForm(job, media, children);
    const answer = await this.api.call('POST', '/me/threads', () => form);
    const containerId = idOf(answer.json);
    if (!containerId) throw new NotForThreads('Threads answered the container without an id: publish again.');
    return { step, containerId, sinceMs: this.now(), checks: 0 };
  }

  private status(containerId: string): Promise<ContainerStatus> {
    return readContainerStatus(this.api, containerId, ['status', 'error_message']);
  }

  /** A prepare's next step by the container's status. */
  private afterStatus(state: ThreadsState, status: ContainerStatus): PrepareOutcome {
    return preparedByStatus(state, status, this.platform, this.now());
  }

  /** The commit, by the container's status. */
  private commit(state: ThreadsState, status: ContainerStatus): Promise<StepOutcome> {
    return commitByStatus(state, status, this.platform, this.now(), async () => {
      const spent = await this.quotaSpent();
      if (spent) return spent;
      try {
        return await this.publish(state.containerId);
      } catch (error) {
        // "Media Not Found" (24/4279009) right after the container was made: a race; publish again soon.
        if (error instanceof ThreadsRefusal && graphErrorOf(error.answer)?.subcode === 4_279_009) {
          return this.pending(state);
        }
        throw new PublishFailure(error);
      }
    });
  }

  /**
   * The profile's publishing quota, read before a post is published (`GET /me/threads_publishing_limit`,
   * …/threads/overview: 250 posts in a rolling 24 hours, enforced on `threads_publish`): spent, the
   * post waits (rate limited for an hour: Meta says how many were published, not when the oldest of
   * them leaves the window). A quota that cannot be read does not hold the post up.
   */
  private async quotaSpent(): Promise<FailedOutcome | undefined> {
    let json: unknown;
    try {
      json = (await this.api.call('GET', '/me/threads_publishing_limit?fields=quota_usage,config')).json;
    } catch {
      return undefined;
    }
    const usage = (json as { data?: { quota_usage?: unknown; config?: { quota_total?: unknown } }[] })
      ?.data?.[0];
    const used = Number(usage?.quota_usage);
    const total = Number(usage?.config?.quota_total);
    if (!Number.isFinite(used) || !Number.isFinite(total) || total <= 0 || used < total) return undefined;
    return {
      ok: false,
      kind: 'rate_limited',
      retryAfterMs: HOUR_MS,
      reason: `Threads lets ${this.api.account} publish ${total} posts in 24 hours, and ${used} were published: the post waits until Threads allows more.`,
    };
  }

  private publish(containerId: string): Promise<PublishOutcome> {
    return publishContainer(this.api, '/me/threads_publish', containerId, this.now());
  }

  private pending(state: ThreadsState): PendingOutcome {
    return containerPending({ ...state }, 'Threads', this.now());
  }
}

/** A failure of the publish call itself (classified as the post, not as a read). */
class PublishFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('publish failed');
  }
}

export const openThreads: OpenConnector = (connection, context) => new ThreadsPublisher(connection, context);
