/**
 * The Google Business Profile connector: a post becomes a local post of the location
 * (`POST /v4/accounts/{a}/locations/{l}/localPosts`, business-post.ts says what each field becomes),
 * every call with the connection's Google token, refreshed by the TokenKeeper before it expires (an hour).
 *
 * Google answers the post with its `state`: LIVE (published: its `searchUrl` is the public link),
 * PROCESSING (Google reviews it: checked again later, holding nothing, with `GET …/localPosts/{id}`), or
 * REJECTED, which a 200 may carry, when Google refuses it for its content policies: the delivery fails
 * with Google's reason. Google has no idempotency key: a post whose answer was lost is looked for
 * among the location's local posts by its summary since the due time (`confirm`), never sent blindly.
 * Local posts take no comments: the auto-comment is refused with that reason (pre-flight said so).
 */
import type {
  CheckOutcome,
  CommentJob,
  ConfirmOutcome,
  DeliveryJob,
  Publisher,
  PublishOutcome,
  StepOutcome,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, OpenConnector } from '../../connector.js';
import { GOOGLE_AUTH_ROOT } from '../google/google-oauth.js';
import { connectionToken } from '../oauth-tokens.js';
import { NotForPlatform, PlatformApi } from '../platform-api.js';
import { publicAddressOf } from '../public-media.js';
import { businessHosts, GOOGLE_BUSINESS_HOOKS } from './business-account.js';
import { type LocalPost, localPostOf, photoOf } from './business-post.js';

/** The first check of a post Google is processing, then half as long again each time, up to the longest. */
const CHECK_MS = { first: 15_000, longest: 5 * 60_000 };
/** How long a post may stay PROCESSING before the delivery fails. */
const PROCESSING_DEADLINE_MS = 24 * 3_600_000;
/** How early (by Google's clock against ours) a post found by `confirm` may have been created. */
const CLOCK_SKEW_MS = 5 * 60_000;

type Stage = 'post' | 'read';

/** What a pending delivery stores: the local post Google is processing. */
interface BusinessState {
  step: 'commit';
  name: string;
  sinceMs: number;
  checks: number;
}

function readState(state: DeliveryJob['state']): BusinessState | undefined {
  const value = state as Partial<BusinessState>;
  if (value.step !== 'commit' || typeof value.name !== 'string' || !value.name) return undefined;
  return {
    step: 'commit',
    name: value.name,
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
    checks: typeof value.checks === 'number' ? value.checks : 0,
  };
}

/** A local post as Google answers it. */
interface AnsweredPost {
  name?: unknown;
  state?: unknown;
  searchUrl?: unknown;
  summary?: unknown;
  createTime?: unknown;
}

class GoogleBusinessPublisher implements Publisher {
  readonly name = 'googlebusiness';
  /** Google has no idempotency key: a post whose outcome is unknown is looked for, never resent blindly. */
  readonly idempotent = false;
  private readonly api: PlatformApi<Stage>;
  /** `…/v4/accounts/{a}/locations/{l}/localPosts`. */
  private readonly posts: string;
  private readonly languageCode: string | undefined;

  constructor(
    connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    const { token, secrets } = connectionToken(connection, {
      hooks: async () => (await import('./business-account.js')).googleBusinessOAuth,
      authRoot: GOOGLE_AUTH_ROOT,
      platform: 'Google Business Profile',
      context,
    });
    const postsOrigin = businessHosts(connection.endpoint).posts;
    this.posts = `${postsOrigin}/v4/${connection.accountId}/localPosts`;
    const { languageCode } = connection.settings;
    this.languageCode = typeof languageCode === 'string' && languageCode ? languageCode : undefined;
    this.api = new PlatformApi({
      base: postsOrigin,
      account: connection.account,
      token,
      context,
      secrets,
      hooks: GOOGLE_BUSINESS_HOOKS,
      stages: { post: { what: 'local post' }, read: { what: 'read of the local post', repeatable: true } },
    });
  }

  async deliver(job: DeliveryJob): Promise<StepOutcome> {
    try {
      const body = await this.localPost(job);
      const answer = await this.api.json('POST', this.posts, body);
      return this.after(answer.json as AnsweredPost, { sinceMs: this.now(), checks: 0 });
    } catch (error) {
      return this.api.failure(error, 'post');
    }
  }

  async check(job: DeliveryJob): Promise<CheckOutcome> {
    const state = readState(job.state);
    if (!state)
      return { ok: false, kind: 'refused', reason: 'The Business Profile delivery has no post to check.' };
    try {
      const answer = await this.api.call('GET', `/v4/${state.name}`);
      return this.after(answer.json as AnsweredPost, { sinceMs: state.sinceMs, checks: state.checks + 1 });
    } catch (error) {
      return this.api.failure(error, 'read');
    }
  }

  /** Looks for the post among the location's local posts: the same summary, created since it fell due. */
  async confirm(job: DeliveryJob): Promise<ConfirmOutcome> {
    try {
      const body = await this.localPost(job);
      const since = Math.min(job.dueAtMs, this.now()) - CLOCK_SKEW_MS;
      let pageToken: string | undefined;
      for (let page = 0; page < 10; page++) {
        const url = new URL(this.posts);
        url.searchParams.set('pageSize', '100');
        if (pageToken) url.searchParams.set('pageToken', pageToken);
        const answer = await this.api.call('GET', url.href);
        const json = (answer.json ?? {}) as { localPosts?: AnsweredPost[]; nextPageToken?: unknown };
        const found = (json.localPosts ?? []).find(
          (post) =>
            post.summary === body.summary &&
            typeof post.createTime === 'string' &&
            Date.parse(post.createTime) >= since,
        );
        if (found) return this.after(found, { sinceMs: this.now(), checks: 0 });
        pageToken =
          typeof json.nextPageToken === 'string' && json.nextPageToken ? json.nextPageToken : undefined;
        if (!pageToken) break;
      }
      return { ok: 'absent' };
    } catch (error) {
      return this.api.failure(error, 'read');
    }
  }

  async comment(_job: CommentJob): Promise<PublishOutcome> {
    return {
      ok: false,
      kind: 'refused',
      reason: 'Google Business Profile has no comments on local posts: the auto-comment is not posted there.',
    };
  }

  close(): Promise<void> {
    return this.api.close();
  }

  private async localPost(job: DeliveryJob): Promise<LocalPost> {
    const photo = photoOf(job.content);
    const url = photo
      ? await publicAddressOf(this.context, job.brandId, photo, 'Google Business Profile')
      : undefined;
    return localPostOf(job.content, url, this.languageCode);
  }

  /** What Google's answer means: published, still processing (checked again), or rejected. */
  private after(post: AnsweredPost, progress: { sinceMs: number; checks: number }): StepOutcome {
    const name = typeof post.name === 'string' && post.name ? post.name : undefined;
    if (!name) throw new NotForPlatform('Google answered the local post without its name.');
    const state = typeof post.state === 'string' ? post.state : 'LOCAL_POST_STATE_UNSPECIFIED';
    if (state === 'LIVE') {
      return { ok: true, externalId: name, url: typeof post.searchUrl === 'string' ? post.searchUrl : null };
    }
    if (state === 'REJECTED') {
      return {
        ok: false,
        kind: 'refused',
        reason: `Google rejected the local post of ${this.api.account} (state REJECTED): it breaks Google's content policies for Business Profile posts (support.google.com/business/answer/7213077). Change the post and publish again.`,
      };
    }
    const wait = Math.min(CHECK_MS.first * 1.5 ** progress.checks, CHECK_MS.longest);
    return {
      ok: 'pending',
      state: { step: 'commit', name, ...progress },
      checkAtMs: this.now() + wait,
      reason: `Google is reviewing the local post of ${this.api.account} (${state}).`,
      deadlineAtMs: progress.sinceMs + PROCESSING_DEADLINE_MS,
    };
  }

  private now(): number {
    return this.context.clock.now();
  }
}

export const openGoogleBusiness: OpenConnector = (connection, context) =>
  new GoogleBusinessPublisher(connection, context);
