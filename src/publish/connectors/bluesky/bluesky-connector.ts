/**
 * The Bluesky connector: a post becomes one `app.bsky.feed.post` record in the connected account's
 * repository, a comment a reply record to it, written to the account's PDS with @atproto/api (loaded
 * only when a Bluesky channel publishes or connects). The session and its renewal are in
 * bluesky-session.ts, the text and the checks in bluesky-post.ts.
 *
 * Sent once: a record's key is derived from the job's `idempotencyKey` (blueskyRecordKey), and the
 * record is looked up by that key before it is created, and again after a create that failed (a create
 * repeated after a crash fails because the record exists). A resend finds it and reports it sent.
 *
 * What the record carries: the text of blueskyPostText (domain/platform-rules.ts: caption, link, a poll
 * written out; the pre-flight measures the same text) with facets for its links, mentions (resolved to
 * DIDs; a handle that does not resolve stays plain text) and hashtags; up to four PNG or JPEG images
 * of at most 2 MB, each with the post's alt text (empty when none) and its aspect ratio; `createdAt` =
 * when the post was due. Video is not supported (Bluesky takes it through a video service of its own).
 */
import type { Capabilities } from '../../../domain/capabilities.js';
import type { PlatformMedia } from '../../../domain/delivery.js';
import { isServiceError, ValidationError } from '../../../domain/errors.js';
import { blueskyPostText } from '../../../domain/platform-rules.js';
import type { CommentJob, DeliveryJob, FailureKind, Publisher, PublishOutcome } from '../../../ports.js';
import type {
  ConnectionDetails,
  ConnectorContext,
  OpenConnector,
  VerifiedConnection,
} from '../../connector.js';
import { errorCode, retryAfterMs } from '../../platform-http.js';
import {
  BLUESKY_IMAGE_TYPES,
  BLUESKY_MAX_IMAGE_BYTES,
  BLUESKY_MAX_IMAGES,
  BLUESKY_TEXT_GRAPHEMES,
  blueskyRecordKey,
  checkImage,
  checkText,
  imageSize,
  parseAtUri,
  Refused,
  recordKeyTimeMs,
  usableFacets,
} from './bluesky-post.js';
import {
  ACCOUNT_ERRORS,
  APP_PASSWORD_ADVICE,
  type BlueskySecret,
  BlueskySession,
  hideSecrets,
  isXrpcFailure,
  NeedsReconnect,
  newAgent,
  sessionRejected,
} from './bluesky-session.js';

const POST = 'app.bsky.feed.post';
/** Record keys tried per delivery before giving up (see blueskyRecordKey). */
const KEY_ROUNDS = 3;
/** Connection errors that happen before any byte of the request is written. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const CONNECT = 'social-publisher-mcp connect bluesky';

/** What a Bluesky account takes. Video would need Bluesky's video service: not supported here. */
export function capabilitiesOfBluesky(): Capabilities {
  return {
    textLimit: BLUESKY_TEXT_GRAPHEMES,
    textUnit: 'graphemes',
    maxMedia: BLUESKY_MAX_IMAGES,
    mediaTypes: BLUESKY_IMAGE_TYPES,
    maxImageBytes: BLUESKY_MAX_IMAGE_BYTES,
    requiresMedia: false,
    polls: false,
    pollWithMedia: false,
  };
}

/** The PDS's (or entryway's) base URL, `https://host`, from `host` or a URL. */
export function blueskyService(service: string): string {
  const text = service.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new Error(`"${service}" is not a Bluesky service address: give its URL, like https://bsky.social.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`The Bluesky service address must use https, not ${url.protocol}`);
  }
  return url.origin;
}

export interface VerifyBlueskyOptions {
  /** The account's PDS or entryway: `https://bsky.social` for accounts made on bsky.app. */
  service: string;
  /** `name.bsky.social`, with or without `@`. */
  handle: string;
  /** An app password of the account. Never put in an error message. */
  password: string;
  userAgent?: string;
  timeoutMs?: number;
}

/**
 * Signs in with an app password and says what to store. Rejects with an Error that says what to fix
 * and never contains the password: a wrong handle or password, the account's own password (an app
 * password can be revoked alone), an account that is not active, a service that cannot be reached.
 */
export async function verifyBluesky(options: VerifyBlueskyOptions): Promise<VerifiedConnection> {
  const service = blueskyService(options.service);
  const handle = options.handle.trim().replace(/^@/, '');
  const userAgent = options.userAgent ?? 'social-publisher-mcp';
  const agent = await newAgent(service, options.timeoutMs ?? 15_000, userAgent);
  try {
    await agent.login({ identifier: handle, password: options.password });
  } catch (error) {
    const said = hideSecrets(error instanceof Error ? error.message : String(error), [options.password]);
    if (!isXrpcFailure(error) || error.status === 1) {
      throw new Error(`Could not reach ${service} (${said}): check the address.`);
    }
    if (error.error === 'AccountTakedown') throw new Error(`Bluesky has taken down ${handle} (${said}).`);
    if (error.status === 401) {
      throw new Error(
        `Bluesky refused the handle or app password (${said}): check the handle ${handle}, and ${APP_PASSWORD_ADVICE}.`,
      );
    }
    if (error.status === 429) throw new Error(`Bluesky is limiting sign-ins to ${handle}: try again later.`);
    throw new Error(`Bluesky did not sign ${handle} in (${said}): try again.`);
  }
  const session = agent.session!;
  if (tokenScope(session.accessJwt) === 'com.atproto.access') {
    await agent.logout();
    throw new Error(`That is the account's own password, not an app password: ${APP_PASSWORD_ADVICE}.`);
  }
  if (session.active === false) {
    throw new Error(
      `Bluesky says ${session.handle} is ${session.status ?? 'not active'}: reactivate it first.`,
    );
  }
  const { accessJwt, refreshJwt, did } = session;
  const secret: BlueskySecret = {
    appPassword: options.password,
    session: { accessJwt, refreshJwt, did, handle: session.handle },
  };
  return {
    kind: 'bluesky',
    account: session.handle,
    accountId: did,
    endpoint: service,
    profileUrl: `https://bsky.app/profile/${session.handle}`,
    settings: {},
    capabilities: capabilitiesOfBluesky(),
    secret: JSON.stringify(secret),
  };
}

/** The `scope` of a session's access token (as the reference PDS makes them), or undefined. */
function tokenScope(jwt: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload?.scope === 'string' ? payload.scope : undefined;
  } catch {
    return undefined;
  }
}

/** A media file of the post could not be read. */
class MediaUnreadable extends Error {}
/** The create request itself failed: the record may exist although we could not see it. */
class CreateFailed extends Error {}

type RecordValue = Record<string, unknown>;
type Found = { uri: string; cid?: string; value: RecordValue };

class BlueskyPublisher implements Publisher {
  readonly name = 'bluesky';
  readonly idempotent = true;
  private readonly session: BlueskySession;

  constructor(
    private readonly connection: ConnectionDetails & { secret: string },
    private readonly context: ConnectorContext,
  ) {
    this.session = new BlueskySession(connection, context);
  }

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    const { content } = job;
    try {
      const text = blueskyPostText(content);
      checkText(text, content.poll ? 'The text with the poll written out' : 'The text');
      if (content.media.length > BLUESKY_MAX_IMAGES) {
        throw new Refused(
          `Bluesky takes at most ${BLUESKY_MAX_IMAGES} images; the post has ${content.media.length}.`,
        );
      }
      const createdAt = new Date(job.dueAtMs).toISOString();
      return await this.sendOnce(
        (round) => blueskyRecordKey(job.idempotencyKey, job.dueAtMs, round),
        (value) => value.text === text && value.createdAt === createdAt,
        async () => {
          const images = await this.uploadImages(job.brandId, content.media, content.alt ?? '');
          const record: RecordValue = { $type: POST, text, createdAt, ...(await this.facetsOf(text)) };
          if (images.length > 0) record.embed = { $type: 'app.bsky.embed.images', images };
          return record;
        },
      );
    } catch (error) {
      return this.failure(error, 'post');
    } finally {
      await this.session.store();
    }
  }

  async comment(job: CommentJob): Promise<PublishOutcome> {
    const { comment: text, externalId } = job;
    try {
      const parent = externalId ? parseAtUri(externalId) : undefined;
      if (!parent) throw new Refused('The Bluesky post to reply to has no at:// address.');
      checkText(text, 'The comment');
      const found = await this.findRecord(parent.rkey, parent.repo, parent.collection);
      if (!found?.cid) throw new Refused(`The Bluesky post to reply to (${externalId}) no longer exists.`);
      const parentRef = { uri: found.uri, cid: found.cid };
      const root = (found.value.reply as { root?: unknown } | undefined)?.root ?? parentRef;
      // Just after the post's own key time: stable across attempts, as the key must be.
      const keyTimeMs = (recordKeyTimeMs(parent.rkey) ?? 0) + 1;
      const createdAt = new Date(this.context.clock.now()).toISOString();
      const repliesTo = (value: RecordValue) =>
        (value.reply as { parent?: { uri?: unknown } } | undefined)?.parent?.uri === parentRef.uri;
      return await this.sendOnce(
        (round) => blueskyRecordKey(job.idempotencyKey, keyTimeMs, round),
        (value) => value.text === text && repliesTo(value),
        async () => ({
          $type: POST,
          text,
          createdAt,
          reply: { root, parent: parentRef },
          ...(await this.facetsOf(text)),
        }),
      );
    } catch (error) {
      return this.failure(error, 'reply');
    } finally {
      await this.session.store();
    }
  }

  async close(): Promise<void> {}

  /**
   * Creates the record under the first of the delivery's keys that is free, unless one of them already
   * holds this very record (`isOurs`): then it was sent before, and is reported sent.
   */
  private async sendOnce(
    keyOf: (round: number) => string,
    isOurs: (value: RecordValue) => boolean,
    build: () => Promise<RecordValue>,
  ): Promise<PublishOutcome> {
    const repo = this.connection.accountId;
    let record: RecordValue | undefined;
    for (let round = 0; round < KEY_ROUNDS; round++) {
      const rkey = keyOf(round);
      const existing = await this.findRecord(rkey);
      if (existing) {
        if (isOurs(existing.value)) return this.sent(rkey);
        continue;
      }
      record ??= await build();
      const value = record;
      try {
        await this.session.call((agent) =>
          agent.com.atproto.repo.createRecord({ repo, collection: POST, rkey, record: value }),
        );
        return this.sent(rkey);
      } catch (error) {
        const after = await this.findRecord(rkey).catch(() => undefined);
        if (after && isOurs(after.value)) return this.sent(rkey);
        throw new CreateFailed('The create request failed.', { cause: error });
      }
    }
    throw new Refused(
      `Every record key this delivery may use holds another post of ${this.connection.account}.`,
    );
  }

  private sent(rkey: string): PublishOutcome {
    return {
      ok: true,
      externalId: `at://${this.connection.accountId}/${POST}/${rkey}`,
      url: `https://bsky.app/profile/${this.connection.account}/post/${rkey}`,
    };
  }

  /** The record at `rkey`, or undefined when there is none. */
  private async findRecord(
    rkey: string,
    repo = this.connection.accountId,
    collection = POST,
  ): Promise<Found | undefined> {
    try {
      const answer = await this.session.call((agent) =>
        agent.com.atproto.repo.getRecord({ repo, collection, rkey }),
      );
      return answer.data;
    } catch (error) {
      if (!isXrpcFailure(error)) throw error;
      if (error.error === 'RecordNotFound') return undefined;
      // Another refusal may mean that the account is no longer active (not asked when rate limited).
      if (error.status >= 400 && error.status !== 429) await this.session.assertActive();
      throw error;
    }
  }

  /** Reads and checks every image before uploading any, so that a refused one wastes no upload. */
  private async uploadImages(brandId: number, media: readonly PlatformMedia[], alt: string) {
    const files = [];
    for (const element of media) {
      const file = await this.context.loadMedia(brandId, element).catch((error: unknown) => {
        throw new MediaUnreadable('A media file could not be read.', { cause: error });
      });
      checkImage(file);
      files.push(file);
    }
    const images = [];
    for (const file of files) {
      const { data } = await this.session.call((agent) =>
        agent.uploadBlob(file.bytes, { encoding: file.type }),
      );
      const aspectRatio = imageSize(file.bytes, file.type);
      images.push({ image: data.blob, alt, ...(aspectRatio ? { aspectRatio } : {}) });
    }
    return images;
  }

  /** Facets for the text's links, hashtags and the mentions whose handle resolves to a DID. */
  private async facetsOf(text: string): Promise<{ facets?: unknown[] }> {
    const { RichText } = await import('./atproto.js');
    const rich = new RichText({ text });
    await rich.detectFacets(await this.session.ready());
    const facets = usableFacets(rich.facets);
    return facets.length > 0 ? { facets } : {};
  }

  /** Every way a send can fail, turned into the kinds the scheduler acts on: the one place that decides. */
  private failure(thrown: unknown, what: 'post' | 'reply'): PublishOutcome {
    const created = thrown instanceof CreateFailed;
    const error = created ? thrown.cause : thrown;
    const account = this.connection.account;
    const fail = (kind: FailureKind, reason: string) => ({ ok: false, kind, reason }) as const;
    if (error instanceof NeedsReconnect) {
      const advice = error.advice ? `${error.advice}, and ` : '';
      return fail('reconnect', `${error.message}: ${advice}reconnect with \`${CONNECT}\` for ${account}.`);
    }
    if (error instanceof Refused) return fail('refused', error.message);
    if (error instanceof MediaUnreadable) {
      const { cause } = error;
      const detail =
        cause instanceof ValidationError
          ? Object.values(cause.errors).flat().join(' ')
          : this.session.hide(cause instanceof Error ? cause.message : String(cause));
      // A refused URL or a missing file stays so; a download that failed may work next time.
      const kind = isServiceError(cause) ? 'refused' : 'transient';
      return fail(kind, `A media file of the post could not be read: ${detail}`);
    }
    if (!isXrpcFailure(error)) {
      const message = this.session.hide(error instanceof Error ? error.message : String(error));
      this.context.log(`Bluesky ${what} for ${account} failed unexpectedly: ${message}`);
      return fail(created ? 'unknown' : 'transient', `The Bluesky ${what} failed unexpectedly: ${message}`);
    }
    const said = this.session.hide(error.message);
    if (error.status === 429 || error.error === 'RateLimitExceeded') {
      return {
        ...fail('rate_limited', `Bluesky is rate limiting ${account} (${said}).`),
        retryAfterMs: retryAfterMs(error.headers ?? {}, this.context.clock.now()) ?? null,
      };
    }
    if (ACCOUNT_ERRORS.has(error.error ?? '') || sessionRejected(error)) {
      return this.failure(new NeedsReconnect(`Bluesky refused ${account} (${said})`), what);
    }
    if (error.status === 1 || error.status === 2) {
      // 1: no answer came; 2: an answer we could not read. Only a create may have been carried out.
      const late = timedOut(error);
      const code = errorCode(error);
      const unsent = !late && error.status === 1 && code !== undefined && NOT_SENT.has(code);
      const detail = late ? `no answer within ${this.context.timeoutMs} ms` : (code ?? said);
      if (created && !unsent) {
        return fail('unknown', `Bluesky did not answer the ${what} (${detail}): it may have been published.`);
      }
      return fail('transient', `Bluesky (${this.connection.endpoint}) could not be reached (${detail}).`);
    }
    if (error.status >= 500) {
      return fail('transient', `Bluesky failed the ${what} (HTTP ${error.status}: ${said}).`);
    }
    return fail('refused', `Bluesky refused the ${what}: ${said}`);
  }
}

function timedOut(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name === 'TimeoutError') return true;
  }
  return false;
}

export const openBluesky: OpenConnector = (connection, context) => new BlueskyPublisher(connection, context);
