/**
 * The webhook publisher: POSTs each delivery and auto-comment as signed JSON to one URL and retries
 * transient failures with capped exponential backoff. A receiver checks the signature with
 * `verifySignature` (HMAC-SHA256 of "<timestamp>.<raw body>") and deduplicates by the `idempotency-key`
 * header, which stays the same across the retries of one job.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { logInfo } from '../logger.js';
import type {
  CommentJob,
  DeliveryJob,
  Publisher,
  PublishingEventSink,
  PublishOutcome,
  RateLimitState,
} from '../ports.js';
import { classifyHttpFailure, type PlatformHooks, rateLimitOf } from './connectors/http.js';
import {
  callPlatform,
  type PlatformAnswer,
  PlatformUnreachable,
  retryAfterMs,
  summarise,
} from './platform-http.js';
import { sendRetrying } from './publishing-events.js';

export interface WebhookPublisherOptions {
  url: string;
  /** Signs every request; never sent, logged or put in a reason. */
  secret: string;
  /** Attempts in all, the first one included. Default 5. */
  maxAttempts?: number;
  /** Backoff before the second attempt, doubled for each further one. Default 500. */
  baseDelayMs?: number;
  /** Cap on any wait between attempts, Retry-After included. Default 30000. */
  maxDelayMs?: number;
  /** Deadline of one attempt: connecting, the answer and its body. Default 10000. */
  timeoutMs?: number;
  /** Sent in the user-agent header. Default 'dev'. */
  version?: string;
  /** Where retries are reported. Default: stderr. */
  log?: (message: string) => void;
  /** Also told of retries, for the users of the post's brand (MCP logging). */
  events?: PublishingEventSink;
  /**
   * The receiver publishes once per `idempotency-key`, as the operator says it does
   * (SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES). Default false.
   */
  deduplicates?: boolean;
}

export type WebhookEvent = 'delivery' | 'comment';

/** Signature header value for a body sent at `timestamp` (unix seconds): `sha256=<hex>`. */
export function signPayload(secret: string, timestamp: number | string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * True when `header` signs `body` at `timestamp` with `secret` and the timestamp is within
 * `toleranceSeconds` of now, which keeps a captured request from being replayed later.
 */
export function verifySignature(
  secret: string,
  header: string | null | undefined,
  timestamp: number | string | null | undefined,
  body: string,
  toleranceSeconds = 300,
  nowMs = Date.now(),
): boolean {
  if (!header || timestamp === null || timestamp === undefined || !/^\d+$/.test(String(timestamp))) {
    return false;
  }
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

type AttemptResult =
  | { kind: 'ok'; externalId: string | null; limit?: RateLimitState | undefined }
  | { kind: 'retry' | 'final'; detail: string; said?: string; retryAfterMs?: number | null };

const BODY_LIMIT = 64 * 1024;
const SAID_LIMIT = 200;
/** The webhook's part of the shared classification: only the kinds are read, the receiver's words quoted. */
const WEBHOOK_HOOKS: PlatformHooks = { name: 'The webhook' };

export class WebhookPublisher implements Publisher {
  readonly name = 'webhook';
  /**
   * A timeout, or a process killed mid-send, can leave a request that the receiver did process; only a
   * receiver that honours `idempotency-key` makes sending it again safe. We cannot find that out, so it
   * is the operator's to say (`deduplicates`): then such a send is sent again, with the same key;
   * otherwise it is failed with the reason.
   */
  readonly idempotent: boolean;
  private readonly url: string;
  private readonly secret: string;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly log: (message: string) => void;
  private readonly events: PublishingEventSink | undefined;
  private readonly agent: Agent;

  constructor(options: WebhookPublisherOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`The webhook URL must use http or https, not ${url.protocol}`);
    }
    if (!options.secret) throw new Error('The webhook secret must not be empty.');
    this.url = url.href;
    this.secret = options.secret;
    this.maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 5));
    this.baseDelayMs = Math.max(0, options.baseDelayMs ?? 500);
    this.maxDelayMs = Math.max(0, options.maxDelayMs ?? 30_000);
    this.timeoutMs = Math.max(1, options.timeoutMs ?? 10_000);
    this.userAgent = `social-publisher-mcp/${options.version ?? 'dev'}`;
    this.log = options.log ?? logInfo;
    this.events = options.events;
    this.idempotent = options.deduplicates ?? false;
    this.agent = new Agent({
      connect: { timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  deliver(job: DeliveryJob): Promise<PublishOutcome> {
    const { deliveryId, postId, brandId, channel, content } = job;
    const fields = { deliveryId, postId, brandId, channel, content };
    return this.send('delivery', `delivery-${deliveryId}`, fields, job);
  }

  comment(job: CommentJob): Promise<PublishOutcome> {
    const { deliveryId, postId, brandId, channel, externalId, comment } = job;
    const fields = { deliveryId, postId, brandId, channel, externalId, comment };
    return this.send('comment', `comment-${deliveryId}`, fields, job);
  }

  /** Closes the pooled connections; waits for requests under way. */
  close(): Promise<void> {
    return this.agent.close();
  }

  private async send(
    event: WebhookEvent,
    idempotencyKey: string,
    fields: Record<string, unknown>,
    job: DeliveryJob | CommentJob,
  ): Promise<PublishOutcome> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(event, idempotencyKey, fields, attempt);
      if (result.kind === 'ok') {
        return { ok: true, externalId: result.externalId, ...(result.limit ? { limit: result.limit } : {}) };
      }
      if (result.kind === 'final' || attempt >= this.maxAttempts) {
        const attempts = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
        const said = result.said ? ` It said: ${result.said}` : '';
        return { ok: false, reason: `The webhook ${result.detail} after ${attempts}.${said}` };
      }
      const delayMs = result.retryAfterMs ?? this.backoff(attempt);
      this.log(
        `Webhook ${idempotencyKey} ${result.detail} on attempt ${attempt} of ${this.maxAttempts}; retrying in ${delayMs} ms.`,
      );
      this.events?.(
        sendRetrying(
          { id: job.postId, brandId: job.brandId },
          `${event === 'comment' ? 'auto-comment' : 'delivery'} to ${job.channel.name}`,
          `the webhook ${result.detail} on attempt ${attempt} of ${this.maxAttempts}`,
        ),
      );
      await sleep(delayMs);
    }
  }

  private async attempt(
    event: WebhookEvent,
    idempotencyKey: string,
    fields: Record<string, unknown>,
    attempt: number,
  ): Promise<AttemptResult> {
    const now = new Date();
    const timestamp = String(Math.floor(now.getTime() / 1000));
    const body = JSON.stringify({ event, ...fields, attempt, sentAt: now.toISOString() });
    let answer: PlatformAnswer;
    try {
      answer = await callPlatform(this.url, {
        method: 'POST',
        dispatcher: this.agent,
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': this.userAgent,
          'idempotency-key': idempotencyKey,
          'x-social-publisher-event': event,
          'x-social-publisher-timestamp': timestamp,
          'x-social-publisher-signature': signPayload(this.secret, timestamp, body),
        },
        timeoutMs: this.timeoutMs,
        limitBytes: BODY_LIMIT,
        // Webhook URLs often carry a token in their path or query.
        secrets: [this.url],
        secretMask: '<webhook url>',
      });
    } catch (error) {
      if (!(error instanceof PlatformUnreachable)) throw error;
      // The receiver has accepted the job: an unreadable answer must not make us send it again.
      if (error.status !== undefined && error.status >= 200 && error.status < 300) {
        return { kind: 'ok', externalId: null };
      }
      return {
        kind: 'retry',
        detail: error.timedOut ? `timed out (${error.message})` : `could not be reached (${error.message})`,
      };
    }
    const { status, headers } = answer;
    const nowMs = Date.now();
    if (status >= 200 && status < 300) {
      return { kind: 'ok', externalId: externalIdOf(answer.text), limit: rateLimitOf(headers, nowMs) };
    }
    const said = summarise(answer.text, SAID_LIMIT) || undefined;
    const detail = `answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
    const { kind } = classifyHttpFailure(answer, WEBHOOK_HOOKS, {
      what: event,
      address: '<webhook url>',
      account: 'the receiver',
      nowMs,
      secrets: [this.url],
    });
    if (kind === 'transient' || kind === 'rate_limited') {
      const wait = retryAfterMs(headers, nowMs);
      const retryAfter = wait === undefined ? null : Math.min(this.maxDelayMs, Math.round(wait));
      return { kind: 'retry', detail, said, retryAfterMs: retryAfter };
    }
    return { kind: 'final', detail, said };
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    // Half fixed so that waits still grow, half random so that jobs failing together spread out.
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}

function externalIdOf(text: string): string | null {
  try {
    const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id !== '') return id;
    return typeof id === 'number' && Number.isFinite(id) ? String(id) : null;
  } catch {
    return null;
  }
}
