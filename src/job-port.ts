/**
 * The job port: everything the publishing engine does later or again is a job (the pg-boss shape). A
 * delivery's send (its prepare, commit, check and confirm steps), an auto-comment, a poll to close, the
 * media prepared ahead of a post's time and a token refresh are kinds of one row: a due time, an owner
 * and a lease, attempts, a reason, and the state a connector carries between steps. One claim path for
 * every kind: `FOR UPDATE SKIP LOCKED` on PostgreSQL, inside the write lock on SQLite. Re-exported by
 * ports.ts.
 */

import type { StepState } from './publisher-port.js';
import type { DeliveryRecord } from './records.js';

export const JOB_KINDS = ['send', 'comment', 'close_poll', 'prepare', 'refresh'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * `waiting` until due, `active` while its owner works on it (under a lease), then `done` or `failed`.
 * Finished jobs stay: a delivery's attempts and its comment's outcome are read from them.
 */
export type JobStatus = 'waiting' | 'active' | 'done' | 'failed';

/**
 * Where a send is: `commit` (publish), `check` (a pending step checked again), `confirm` (a commit whose
 * outcome is unknown, read back from the platform). Other kinds have one step, `run`; a prepare job is
 * `prepare` or `check`.
 */
export type JobStep = 'run' | 'prepare' | 'commit' | 'check' | 'confirm';

export interface JobRecord {
  id: number;
  kind: JobKind;
  /** The delivery a send, comment or poll job is for; null for prepare and refresh jobs. */
  deliveryId: number | null;
  /** The post a prepare job is for (a send's post is its delivery's). */
  postId: number | null;
  channelId: number;
  status: JobStatus;
  step: JobStep;
  /** When a waiting job is due (UTC ms). */
  dueAtMs: number;
  owner: string | null;
  leaseUntilMs: number | null;
  /** Times claimed to run (a step that ended pending counts once per check: see `reschedule`). */
  attempts: number;
  reason: string | null;
  state: StepState;
  finishedAtMs: number | null;
}

export interface NewJob {
  kind: JobKind;
  deliveryId?: number | null;
  postId?: number | null;
  channelId: number;
  dueAtMs: number;
  step?: JobStep;
  state?: StepState;
}

/** A claimed job and, for the kinds that have one, its delivery as it is now. */
export interface ClaimedJob {
  job: JobRecord;
  delivery: DeliveryRecord | undefined;
}

/** A job put back to wait: a retry, a pending step, a rate limit. */
export interface Reschedule {
  dueAtMs: number;
  reason: string | null;
  step?: JobStep;
  /** Replaces the stored state when given. */
  state?: StepState;
  /** False when the run did not count as an attempt (a pending step checked again, a paced send). */
  countAttempt?: boolean;
}

/**
 * Jobs. Every change of an active job names its owner and does nothing when the claim is no longer that
 * owner's (false), so that the caller neither records nor reports twice.
 */
export interface JobStore {
  /** Adds jobs; one that exists already (same kind and subject) is left as it is. */
  add(jobs: readonly NewJob[]): Promise<void>;
  /**
   * Claims up to `limit` waiting jobs due at `nowMs` (soonest first) for `claim`: active, attempts + 1.
   * A claimed send also turns its delivery `sending`. Returns each with its delivery.
   */
  claim(limit: number, claim: { owner: string; leaseUntilMs: number }, nowMs: number): Promise<ClaimedJob[]>;
  /** Extends the lease of the owner's active jobs. */
  renew(jobIds: readonly number[], claim: { owner: string; leaseUntilMs: number }): Promise<void>;
  /** An active job of this owner, not begun: waiting again, due now, its attempt not counted. */
  handBack(jobId: number, owner: string): Promise<boolean>;
  /** Ends an active job of this owner. */
  finish(
    jobId: number,
    owner: string,
    end: { status: 'done' | 'failed'; reason: string | null; state?: StepState },
    nowMs: number,
  ): Promise<boolean>;
  /** Puts an active job of this owner back to wait. */
  reschedule(jobId: number, owner: string, change: Reschedule): Promise<boolean>;
  /** Active jobs whose lease ended before `nowMs`, soonest ended first. */
  expired(nowMs: number, limit: number): Promise<JobRecord[]>;
  /**
   * Takes over a job whose lease ended (re-checked: its owner may have renewed it meanwhile): waiting
   * again (due now, at `step` when given) or failed with a reason.
   */
  takeOver(
    jobId: number,
    nowMs: number,
    to: { status: 'waiting'; step?: JobStep } | { status: 'failed'; reason: string },
  ): Promise<boolean>;
  /** Waiting jobs of the channel due before `untilMs` wait until then (its account's rate limit). */
  postponeChannel(channelId: number, untilMs: number): Promise<number>;
  /**
   * The channel's account has no request left until `untilMs`: kept for every process (a later one is
   * kept when two are told).
   */
  limitAccount(channelId: number, untilMs: number): Promise<void>;
  /** The accounts limited at `nowMs`, by channel: until when. */
  accountLimits(nowMs: number): Promise<Map<number, number>>;
  /**
   * Takes the claim on refreshing this channel's token for `claim` (a `refresh` job, active under its
   * lease), unless another owner holds it and its lease lasts: false then.
   */
  claimRefresh(
    channelId: number,
    claim: { owner: string; leaseUntilMs: number },
    nowMs: number,
  ): Promise<boolean>;
  /** Ends this owner's refresh claim (done, or failed with the reason). */
  endRefresh(channelId: number, owner: string, nowMs: number, failure?: string): Promise<boolean>;
  /** Whether a job is due at `nowMs`. */
  hasDue(nowMs: number): Promise<boolean>;
  /** The earliest time a job falls due or a lease ends, if any. */
  nextWakeAtMs(): Promise<number | undefined>;
  /** The job of this kind for this delivery. */
  ofDelivery(deliveryId: number, kind: JobKind): Promise<JobRecord | undefined>;
  /** The prepare jobs of a post, by channel. */
  preparedFor(postId: number): Promise<Map<number, JobRecord>>;
  /** Removes the post's prepare jobs (its deliveries took what they made, or the post changed). */
  dropPrepared(postId: number): Promise<void>;
}
