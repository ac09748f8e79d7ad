/**
 * The Publisher port: what the publishing engine hands a channel's connector (a delivery, its
 * auto-comment, a poll to close) and the outcomes it acts on. Re-exported by ports.ts.
 */
import type { PlatformContent } from './domain/delivery.js';
import type { ChannelType } from './domain/schemas.js';

/** One delivery handed to a publisher. `deliveryId` is stable: a publisher may use it to deduplicate. */
export interface DeliveryJob {
  deliveryId: number;
  postId: number;
  brandId: number;
  channel: { id: number; name: string; type: ChannelType };
  content: PlatformContent;
  /**
   * The same for every attempt of this delivery and unique across stores (it includes the store's id):
   * what a platform that deduplicates is given (Mastodon's Idempotency-Key, Bluesky's record key).
   */
  idempotencyKey: string;
  /** When the post was due (UTC ms): stable across attempts, unlike the time of this one. */
  dueAtMs: number;
  /** 1 for the first attempt. */
  attempt: number;
  /**
   * What the connector's earlier steps of this delivery stored (`PendingOutcome.state`,
   * `PreparedOutcome.state`): the platform's ids of an uploaded file, a container, an upload session.
   * Stored before the next step starts, so that another process (after a crash) goes on from there.
   * Empty on the first step.
   */
  state: StepState;
}

/** What a connector carries from one step of a delivery to the next: JSON, kept in the store. */
export type StepState = Readonly<Record<string, unknown>>;

/** The auto-comment of a sent delivery. */
export interface CommentJob {
  deliveryId: number;
  postId: number;
  brandId: number;
  channel: { id: number; name: string; type: ChannelType };
  /** The id the platform gave the post when it was delivered. */
  externalId: string | null;
  comment: string;
  /** The same for every attempt of this comment, unique across stores. */
  idempotencyKey: string;
}

/** Closing a poll that the platform cannot keep open for its whole period by itself (Telegram). */
export interface PollCloseJob {
  deliveryId: number;
  postId: number;
  brandId: number;
  channel: { id: number; name: string; type: ChannelType };
  externalId: string | null;
}

/**
 * Why a send failed, in the few kinds the scheduler acts on (never on a platform's status code):
 * - `reconnect`: the credentials are bad or revoked: the delivery fails and the channel turns INACTIVE;
 * - `rate_limited`: sent again after `retryAfterMs` (or a default wait), other channels going on;
 * - `refused`: the platform refused the content: failed with the platform's own message;
 * - `transient`: the platform was not reached or failed (network, timeout before sending, 5xx): sent
 *   again with backoff;
 * - `unknown`: the request may have been carried out (a timeout after sending): sent again only by a
 *   publisher that deduplicates (`idempotent`), failed with the reason by any other.
 * Absent = `refused`.
 */
export type FailureKind = 'reconnect' | 'rate_limited' | 'refused' | 'transient' | 'unknown';

export type PublishOutcome =
  | {
      ok: true;
      externalId: string | null;
      /** The public address of what was published, for the user to open. */
      url?: string | null;
      /** The platform cannot close the poll by itself: the scheduler calls `closePoll` at this time. */
      closePollAtMs?: number | null;
      /** What the platform said of the account's rate limit in its answer, when it said anything. */
      limit?: RateLimitState;
    }
  | FailedOutcome;

export interface FailedOutcome {
  ok: false;
  reason: string;
  kind?: FailureKind;
  retryAfterMs?: number | null;
  /** What the platform said of the account's rate limit in its answer, when it said anything. */
  limit?: RateLimitState;
}

/**
 * The account's rate limit as the platform's answer told it (limit headers): how many requests are left
 * until `resetAtMs`. The engine spaces that account's (and only that account's) sends by it.
 */
export interface RateLimitState {
  remaining: number;
  /** When the platform gives the account its requests back (UTC ms). */
  resetAtMs: number;
}

/**
 * A step that is not over and must not be waited for inside the send: the platform is processing a
 * video, a container is not ready, TikTok has not given the public id yet. The engine stores `state`
 * and calls the connector's `check` at `checkAtMs` (any process may: the state is in the store); no
 * send slot is held meanwhile.
 */
export interface PendingOutcome {
  ok: 'pending';
  /** What the connector needs to go on (the platform's ids so far). Replaces the stored state. */
  state: StepState;
  /** When to check again (UTC ms). */
  checkAtMs: number;
  /** What is awaited, in the user's words ("Mastodon is processing the video"). */
  reason: string;
  /** The latest time the step may still end well; past it the delivery fails with `reason`. Optional. */
  deadlineAtMs?: number;
}

/** Prepare is done: what it made (`state`) waits for the commit at the due time. */
export interface PreparedOutcome {
  ok: 'prepared';
  state: StepState;
  /** Until when the platform keeps what was prepared (after it, prepare runs again). Optional. */
  expiresAtMs?: number;
  limit?: RateLimitState;
}

/** What `prepare` answers. */
export type PrepareOutcome = PreparedOutcome | PendingOutcome | FailedOutcome;

/** What `deliver` (the commit) answers. */
export type StepOutcome = PublishOutcome | PendingOutcome;

/**
 * What `check` answers: for a pending commit, the same as `deliver`; for a pending prepare (a video the
 * platform processed after its upload ahead of time), `prepared` once it is ready for the commit.
 */
export type CheckOutcome = StepOutcome | PreparedOutcome;

/**
 * What `confirm` answers about a commit whose outcome was unknown: it is there (sent, with its id), it
 * is certainly not there (`absent`: safe to commit again), or the platform cannot tell now (a failure,
 * retried by its kind, or `refused` when it will never be able to tell).
 */
export type ConfirmOutcome = PublishOutcome | PendingOutcome | { ok: 'absent' };

/**
 * What the publishing engine did to a post (published, a delivery failed, a webhook retried), worded for
 * the people who use the post's brand: MCP sessions show it as a log message. Diagnostics for the
 * operator (stack traces) go to each component's `log` instead.
 */
export interface PublishingEvent {
  level: 'info' | 'warning' | 'error';
  message: string;
  brandId: number;
  postId: number;
}

/** Where the publishing engine reports its events; must not throw. */
export type PublishingEventSink = (event: PublishingEvent) => void;

/** Sends deliveries to the platforms (or stands in for them): the connector of a channel. */
export interface Publisher {
  readonly name: string;
  /**
   * True when sending the same job twice has the effect of sending it once (the publisher deduplicates
   * by `idempotencyKey`). Only then is a delivery whose outcome is unknown (a crash, a timeout) sent again.
   */
  readonly idempotent: boolean;
  /**
   * How long before the due time `prepare` may run (ms): how long the platform keeps uploaded media, a
   * container or an upload session unpublished. Without `prepare`, unused.
   */
  readonly prepareLeadMs?: number;
  /**
   * Uploads what the commit will need (media, a container, an upload session) ahead of the due time,
   * so that at the due second only the commit is sent. Answers `prepared` with the state the commit
   * reads, `pending` while the platform processes, or a failure. Optional: without it, `deliver` does
   * everything.
   */
  prepare?(job: DeliveryJob): Promise<PrepareOutcome>;
  /**
   * The commit: publishes the delivery (with `job.state` from `prepare`). May answer `pending` when the
   * platform publishes later (processing): the engine calls `check` then.
   */
  deliver(job: DeliveryJob): Promise<StepOutcome>;
  /**
   * Checks a pending step again, with the state it stored: sent (a commit) or prepared (a prepare),
   * still pending, or failed.
   */
  check?(job: DeliveryJob): Promise<CheckOutcome>;
  /**
   * "Was it published?": reads the platform's state after a commit whose outcome is unknown (a lost
   * answer, a crash mid-commit), so that a platform without idempotency is never sent the commit blindly
   * twice. Without it, such a delivery fails with the reason (or is sent again when `idempotent`).
   */
  confirm?(job: DeliveryJob): Promise<ConfirmOutcome>;
  comment(job: CommentJob): Promise<PublishOutcome>;
  /** Closes a poll whose outcome asked for it (`closePollAtMs`); closing a closed poll succeeds. */
  closePoll?(job: PollCloseJob): Promise<PublishOutcome>;
  /** Releases what the publisher holds (connections); optional. */
  close?(): Promise<void>;
}
