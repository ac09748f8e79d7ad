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
}

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
    }
  | { ok: false; reason: string; kind?: FailureKind; retryAfterMs?: number | null };

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
  deliver(job: DeliveryJob): Promise<PublishOutcome>;
  comment(job: CommentJob): Promise<PublishOutcome>;
  /** Closes a poll whose outcome asked for it (`closePollAtMs`); closing a closed poll succeeds. */
  closePoll?(job: PollCloseJob): Promise<PublishOutcome>;
  /** Releases what the publisher holds (connections); optional. */
  close?(): Promise<void>;
}
