/**
 * The Mastodon connector: a post becomes one status of the connected account, a comment a reply to it.
 *
 * Every status is created with an `Idempotency-Key` header (the job's `idempotencyKey`): Mastodon keeps
 * a key an hour per account and answers a repeat with the status the first request created, so sending
 * again after a timeout or a lease takeover publishes nothing twice. Media are uploaded first (waiting
 * while Mastodon processes a video); a repeated upload only leaves an unattached file, which Mastodon
 * removes. A status carries (statusBody, and mastodonStatusText in domain/platform-rules.ts, where the
 * pre-flight measures the same text) the caption; the link a blank line below unless the caption has
 * it; a poll's question unless the caption asks it (Mastodon's polls have none of their own); the
 * media, each described by the post's alt text; the poll's options, single choice, open for its period.
 * A quiz's correct option and explanation have no Mastodon equivalent and are not sent. Visibility is
 * the account's default.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, FormData } from 'undici';
import type { Capabilities } from '../../../domain/capabilities.js';
import type { PlatformContent, PlatformMedia } from '../../../domain/delivery.js';
import { isServiceError, ValidationError } from '../../../domain/errors.js';
import { mastodonStatusText } from '../../../domain/platform-rules.js';
import type { CommentJob, DeliveryJob, FailureKind, Publisher, PublishOutcome } from '../../../ports.js';
import type {
  ConnectionDetails,
  ConnectorContext,
  OpenConnector,
  VerifiedConnection,
} from '../../connector.js';
import {
  callPlatform,
  type PlatformAnswer,
  type PlatformRequest,
  PlatformUnreachable,
  retryAfterMs,
  summarise,
} from '../../platform-http.js';

/** The members of `GET /api/v2/instance` that say what a status may carry; every one may be absent. */
export interface MastodonInstance {
  domain?: string;
  configuration?: {
    statuses?: {
      max_characters?: number;
      max_media_attachments?: number;
      characters_reserved_per_url?: number;
    };
    media_attachments?: {
      supported_mime_types?: string[];
      image_size_limit?: number;
      video_size_limit?: number;
    };
    polls?: { max_options?: number; max_characters_per_option?: number };
  };
}

/** The media types we accept that Mastodon may take (it takes no PDF). */
const MEDIA_TYPES = ['image/png', 'image/jpeg', 'video/mp4', 'video/quicktime'] as const;

/** The status text, composed where the pre-flight reads it too. */
export { mastodonStatusText };

const POLL_SECONDS = { '1d': 86_400, '3d': 259_200, '7d': 604_800 } as const;

/** How long a video may stay in processing (asked after 250 ms, then less often) before the attempt fails. */
const PROCESSING_DEADLINE_MS = 120_000;
const PROCESSING_POLLS_MS = { first: 250, longest: 2_000 };

/** The 403 answers that mean the token or the account, not the post: only reconnecting helps. */
const ACCOUNT_REFUSALS = /outside the authorized scopes|revoked|suspended|disabled|login is/i;

/** What an instance lets a status carry, from its `GET /api/v2/instance` answer (Mastodon's defaults when absent). */
export function capabilitiesOfMastodon(instance: MastodonInstance): Capabilities {
  const statuses = instance.configuration?.statuses;
  const media = instance.configuration?.media_attachments;
  const polls = instance.configuration?.polls;
  const supported = Array.isArray(media?.supported_mime_types) ? media.supported_mime_types : undefined;
  const imageBytes = countOr(media?.image_size_limit, undefined);
  const videoBytes = countOr(media?.video_size_limit, undefined);
  return {
    textLimit: countOr(statuses?.max_characters, 500),
    // Mastodon counts grapheme clusters (StatusLengthValidator), a link as 23 whatever its length.
    textUnit: 'graphemes',
    linkLength: countOr(statuses?.characters_reserved_per_url, 23),
    maxMedia: countOr(statuses?.max_media_attachments, 4),
    mediaTypes: supported ? MEDIA_TYPES.filter((type) => supported.includes(type)) : [...MEDIA_TYPES],
    ...(imageBytes === undefined ? {} : { maxImageBytes: imageBytes }),
    ...(videoBytes === undefined ? {} : { maxVideoBytes: videoBytes }),
    requiresMedia: false,
    polls: true,
    pollWithMedia: false,
    maxPollOptions: countOr(polls?.max_options, 4),
    maxPollOptionLength: countOr(polls?.max_characters_per_option, 50),
  };
}

function countOr<T extends number | undefined>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;
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

/**
 * `https://host` of an instance given as `host`, `https://host/` or a URL on it. Plain http only to a
 * loopback address (a local test instance): a token must not cross the network unencrypted.
 */
export function mastodonOrigin(instance: string): string {
  const text = instance.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new Error(
      `"${instance}" is not a Mastodon instance address: give its domain, like mastodon.social.`,
    );
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`The Mastodon instance address must use https, not ${url.protocol}`);
  }
  return url.origin;
}

/** What Mastodon said in a refusal: its `error` (and `error_description`), else the body's first line. */
export function mastodonSaid(answer: PlatformAnswer): string {
  const { error, error_description: description } = (answer.json ?? {}) as Record<string, unknown>;
  if (typeof error === 'string' && error) {
    return typeof description === 'string' && description ? `${error}: ${description}` : error;
  }
  return summarise(answer.text) || `HTTP ${answer.status}`;
}

export function hideSecrets(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => (secret ? out.replaceAll(secret, '<secret>') : out), text);
}

const TOKEN_ADVICE =
  'Make one under Preferences → Development → New application with the write:statuses, write:media and ' +
  'read:accounts scopes, or run connect without --token-env for the sign-in flow';

export interface VerifyMastodonOptions {
  /** The instance: `mastodon.social` or its URL. */
  instance: string;
  /** An access token of the account. Never put in an error message. */
  token: string;
  userAgent?: string;
  timeoutMs?: number;
}

/**
 * Checks a token against its instance (`verify_credentials`) and reads what the instance takes. Rejects
 * with an Error that says what to fix and never contains the token.
 */
export async function verifyMastodon(options: VerifyMastodonOptions): Promise<VerifiedConnection> {
  const origin = mastodonOrigin(options.instance);
  const get = async (path: string): Promise<PlatformAnswer> => {
    try {
      return await callPlatform(`${origin}${path}`, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/json',
          'user-agent': options.userAgent ?? 'social-publisher-mcp',
        },
        timeoutMs: options.timeoutMs ?? 15_000,
        secrets: [options.token],
      });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new Error(
        `Could not reach ${origin} (${hideSecrets(detail, [options.token])}): check the address.`,
      );
    }
  };
  const said = (answer: PlatformAnswer) => hideSecrets(mastodonSaid(answer), [options.token]);

  const credentials = await get('/api/v1/accounts/verify_credentials');
  if (credentials.status === 401 || (credentials.status === 403 && /scopes/i.test(said(credentials)))) {
    throw new Error(`Mastodon refused the access token: ${said(credentials)}. ${TOKEN_ADVICE}.`);
  }
  if (credentials.status === 403) {
    throw new Error(`Mastodon refused the account: ${said(credentials)}. Sign in on ${origin} to see why.`);
  }
  const account = (credentials.json ?? {}) as Record<string, unknown>;
  if (credentials.status !== 200 || typeof account.id !== 'string' || typeof account.username !== 'string') {
    throw new Error(
      `${origin} did not answer like a Mastodon instance (verify_credentials: ${said(credentials)}): check the address, or try again if the instance is down.`,
    );
  }
  const instanceAnswer = await get('/api/v2/instance');
  // Mastodon before 4.0 has no /api/v2/instance: its defaults are what it takes.
  if (instanceAnswer.status !== 200 && instanceAnswer.status !== 404) {
    throw new Error(
      `${origin} did not describe itself (/api/v2/instance: ${said(instanceAnswer)}): try again.`,
    );
  }
  const instance = (instanceAnswer.status === 200 ? (instanceAnswer.json ?? {}) : {}) as MastodonInstance;
  return {
    kind: 'mastodon',
    account: `@${account.username}@${typeof instance.domain === 'string' ? instance.domain : new URL(origin).host}`,
    accountId: account.id,
    endpoint: origin,
    profileUrl: typeof account.url === 'string' ? account.url : null,
    settings: {},
    capabilities: capabilitiesOfMastodon(instance),
    secret: options.token,
  };
}

/** A non-2xx answer, thrown to the one place that classifies failures. */
class Refusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** A video Mastodon had not finished processing by the deadline. */
class StillProcessing extends Error {}

/** `upload`: nothing public happens yet, so an unanswered request may simply be sent again. */
type Stage = 'upload' | 'status';

class MastodonPublisher implements Publisher {
  readonly name = 'mastodon';
  readonly idempotent = true;
  private readonly origin: string;
  private readonly agent: Agent;

  constructor(
    private readonly connection: ConnectionDetails & { channelId: number; secret: string },
    private readonly context: ConnectorContext,
  ) {
    this.origin = mastodonOrigin(connection.endpoint);
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
  }

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    let stage: Stage = 'upload';
    try {
      const mediaIds: string[] = [];
      for (const element of job.content.media) {
        mediaIds.push(await this.upload(job.brandId, element, job.content.alt));
      }
      stage = 'status';
      return await this.postStatus(statusBody(job.content, mediaIds), job.idempotencyKey);
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
    };
  }

  /** Uploads one media element and waits until Mastodon has processed it; returns its id. */
  private async upload(brandId: number, element: PlatformMedia, alt: string | undefined): Promise<string> {
    const file = await this.context.loadMedia(brandId, element);
    const form = new FormData();
    form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
    if (alt) form.append('description', alt);
    const answer = await this.send('POST', '/api/v2/media', form);
    const id = (answer.json as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string') throw new Refusal({ ...answer, status: 502 });
    if (answer.status === 200) return id;
    // 202: the file is being processed; GET answers 206 until it is ready, then 200.
    const deadline = performance.now() + PROCESSING_DEADLINE_MS;
    for (let wait = PROCESSING_POLLS_MS.first; ; wait = Math.min(wait * 1.5, PROCESSING_POLLS_MS.longest)) {
      if (performance.now() + wait > deadline) throw new StillProcessing();
      await sleep(wait);
      const state = await this.send('GET', `/api/v1/media/${encodeURIComponent(id)}`);
      if (state.status === 200) return id;
    }
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

  /** Every way a send can fail, turned into the kinds the scheduler acts on: the one place that decides. */
  private failure(error: unknown, stage: Stage): PublishOutcome {
    const what = stage === 'upload' ? 'media upload' : 'status';
    const { account } = this.connection;
    const fail = (kind: FailureKind, reason: string, wait?: number | null): PublishOutcome => ({
      ok: false,
      kind,
      reason: hideSecrets(reason, [this.connection.secret]),
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
    if (error instanceof Refusal) {
      const { status, headers } = error.answer;
      const said = mastodonSaid(error.answer);
      if (status === 401 || (status === 403 && ACCOUNT_REFUSALS.test(said))) {
        return fail(
          'reconnect',
          `Mastodon refused the access token of ${account} (${said}): run \`social-publisher-mcp connect mastodon\` again for ${this.origin} to reconnect the channel.`,
        );
      }
      if (status === 429) {
        const wait = retryAfterMs(headers, this.context.clock.now()) ?? null;
        return fail('rate_limited', `Mastodon is rate limiting ${account} (${said}).`, wait);
      }
      if (status === 408 || status >= 500) {
        return fail('transient', `Mastodon failed the ${what} (HTTP ${status}: ${said}).`);
      }
      return fail('refused', `Mastodon refused the ${what}: ${said}`);
    }
    if (error instanceof PlatformUnreachable) {
      if (!error.sent)
        return fail('transient', `Mastodon (${this.origin}) could not be reached: ${error.message}.`);
      // An upload that may have arrived created nothing public: sending it again is safe.
      return stage === 'upload'
        ? fail('transient', `Mastodon (${this.origin}) did not answer the media upload (${error.message}).`)
        : fail(
            'unknown',
            `Mastodon (${this.origin}) did not answer the status request (${error.message}): it may have been published.`,
          );
    }
    if (error instanceof StillProcessing) {
      return fail(
        'transient',
        `Mastodon was still processing a video after ${PROCESSING_DEADLINE_MS / 1000} s.`,
      );
    }
    if (isServiceError(error)) {
      const detail =
        error instanceof ValidationError ? Object.values(error.errors).flat().join(' ') : error.message;
      return fail('refused', `A media file of the post could not be read: ${detail}`);
    }
    const message = error instanceof Error ? error.message : String(error);
    this.context.log(
      hideSecrets(`Mastodon ${what} for ${account} failed unexpectedly: ${message}`, [
        this.connection.secret,
      ]),
    );
    return fail(
      stage === 'upload' ? 'transient' : 'unknown',
      `The Mastodon ${what} failed unexpectedly: ${message}`,
    );
  }
}

export const openMastodon: OpenConnector = (connection, context) =>
  new MastodonPublisher(connection, context);
