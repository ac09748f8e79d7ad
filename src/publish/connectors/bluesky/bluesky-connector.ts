/**
 * The Bluesky connector: a post becomes one `app.bsky.feed.post` record in the connected account's
 * repository, a comment a reply record to it, written to the account's PDS with @atproto/api (loaded
 * only when a Bluesky channel publishes or connects). The session and its renewal are in
 * bluesky-session.ts, the text and the checks in bluesky-post.ts, the failure kinds in
 * bluesky-failures.ts, the account (capabilities, sign-in) in bluesky-account.ts.
 *
 * Sent once: a record's key is derived from the job's `idempotencyKey` (blueskyRecordKey), and the
 * record is looked up by that key before it is created, and again after a create that failed (a create
 * repeated after a crash fails because the record exists). A resend finds it and reports it sent;
 * `confirm` reads the same keys to tell whether a commit whose answer was lost went through.
 *
 * What the record carries: the text of blueskyPostText (domain/platform-rules.ts: caption, link, a poll
 * written out; the pre-flight measures the same text) with facets for its links, mentions (resolved to
 * DIDs; a handle that does not resolve stays plain text) and hashtags; up to four PNG or JPEG images
 * of at most 2 MB, each with the post's alt text (empty when none) and its aspect ratio; `createdAt` =
 * when the post was due. Video is not supported (Bluesky takes it through a video service of its own).
 *
 * `prepare` uploads the images as blobs ahead of the due time and stores their references; the commit
 * only writes the record. A blob no record references is deleted by the PDS "if it is not referenced
 * within a time window (eg, minutes)" (lexicon com.atproto.repo.uploadBlob), so images are prepared at
 * most 2 minutes ahead and count as kept for 5.
 */
import type { PlatformMedia } from '../../../domain/delivery.js';
import { blueskyPostText } from '../../../domain/platform-rules.js';
import type {
  CommentJob,
  ConfirmOutcome,
  DeliveryJob,
  FailedOutcome,
  PrepareOutcome,
  Publisher,
  PublishOutcome,
  RateLimitState,
} from '../../../ports.js';
import type { ConnectionDetails, ConnectorContext, MediaSource, OpenConnector } from '../../connector.js';
import { limitOf } from '../http.js';
import { CreateFailed, classifyBlueskyFailure, MediaUnreadable } from './bluesky-failures.js';
import {
  BLUESKY_MAX_IMAGES,
  blueskyRecordKey,
  checkImage,
  checkText,
  imageSize,
  parseAtUri,
  Refused,
  recordKeyTimeMs,
  usableFacets,
} from './bluesky-post.js';
import { BlueskySession, isXrpcFailure } from './bluesky-session.js';

export { blueskyService, capabilitiesOfBluesky, verifyBluesky } from './bluesky-account.js';

const POST = 'app.bsky.feed.post';
/** Record keys tried per delivery before giving up (see blueskyRecordKey). */
const KEY_ROUNDS = 3;
/** How long before the due time images may be uploaded, and how long an unreferenced blob is counted on. */
export const BLUESKY_PREPARE_LEAD_MS = 2 * 60_000;
const BLOB_KEPT_MS = 5 * 60_000;

type RecordValue = Record<string, unknown>;
type Found = { uri: string; cid?: string; value: RecordValue };
/** An embedded image: the blob reference (as JSON), its alt text, its aspect ratio. */
type EmbeddedImage = { image: unknown; alt: string; aspectRatio?: { width: number; height: number } };

/** The images `prepare` uploaded, from the stored state; undefined when it did not run. */
function preparedImages(state: DeliveryJob['state']): EmbeddedImage[] | undefined {
  const { step, images } = state as { step?: unknown; images?: unknown };
  return step === 'prepare' && Array.isArray(images) ? (images as EmbeddedImage[]) : undefined;
}

class BlueskyPublisher implements Publisher {
  readonly name = 'bluesky';
  readonly idempotent = true;
  readonly prepareLeadMs = BLUESKY_PREPARE_LEAD_MS;
  private readonly session: BlueskySession;

  constructor(
    private readonly connection: ConnectionDetails & { secret: string },
    private readonly context: ConnectorContext,
  ) {
    this.session = new BlueskySession(connection, context);
  }

  /** Uploads the post's images; the commit then only writes the record that references them. */
  async prepare(job: DeliveryJob): Promise<PrepareOutcome> {
    try {
      const { content } = job;
      this.postText(job);
      const images = await this.uploadImages(job.brandId, content.media, content.alt ?? '');
      return {
        ok: 'prepared',
        state: { step: 'prepare', images: JSON.parse(JSON.stringify(images)) },
        expiresAtMs: this.context.clock.now() + BLOB_KEPT_MS,
      };
    } catch (error) {
      return this.failure(error, 'image upload');
    } finally {
      await this.session.store();
    }
  }

  async deliver(job: DeliveryJob): Promise<PublishOutcome> {
    const { content } = job;
    try {
      const text = this.postText(job);
      const createdAt = new Date(job.dueAtMs).toISOString();
      return await this.sendOnce(
        (round) => blueskyRecordKey(job.idempotencyKey, job.dueAtMs, round),
        (value) => value.text === text && value.createdAt === createdAt,
        async () => {
          const images =
            preparedImages(job.state) ??
            (await this.uploadImages(job.brandId, content.media, content.alt ?? ''));
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

  /**
   * Whether a commit whose outcome is unknown created the record: it is under the first of the
   * delivery's keys not held by another post, or nowhere (`absent`: safe to commit again).
   */
  async confirm(job: DeliveryJob): Promise<ConfirmOutcome> {
    try {
      const text = this.postText(job);
      const createdAt = new Date(job.dueAtMs).toISOString();
      for (let round = 0; round < KEY_ROUNDS; round++) {
        const rkey = blueskyRecordKey(job.idempotencyKey, job.dueAtMs, round);
        const existing = await this.findRecord(rkey);
        if (!existing) return { ok: 'absent' };
        if (existing.value.text === text && existing.value.createdAt === createdAt) return this.sent(rkey);
      }
      return { ok: 'absent' };
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

  /** The post's text, refused (thrown) when Bluesky would not take it or its images. */
  private postText(job: DeliveryJob): string {
    const { content } = job;
    const text = blueskyPostText(content);
    checkText(text, content.poll ? 'The text with the poll written out' : 'The text');
    if (content.media.length > BLUESKY_MAX_IMAGES) {
      throw new Refused(
        `Bluesky takes at most ${BLUESKY_MAX_IMAGES} images; the post has ${content.media.length}.`,
      );
    }
    return text;
  }

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
        const created = await this.session.call((agent) =>
          agent.com.atproto.repo.createRecord({ repo, collection: POST, rkey, record: value }),
        );
        return this.sent(rkey, limitOf(created.headers, this.context.clock.now()).limit);
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

  private sent(rkey: string, limit?: RateLimitState): PublishOutcome {
    return {
      ok: true,
      externalId: `at://${this.connection.accountId}/${POST}/${rkey}`,
      url: `https://bsky.app/profile/${this.connection.account}/post/${rkey}`,
      ...(limit ? { limit } : {}),
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

  /**
   * Reads and checks every image before uploading any, so that a refused one wastes no upload. Images
   * are at most 2 MB (checkImage): each is read whole to find its size, and sent from disk.
   */
  private async uploadImages(
    brandId: number,
    media: readonly PlatformMedia[],
    alt: string,
  ): Promise<EmbeddedImage[]> {
    const files: MediaSource[] = [];
    try {
      for (const element of media) {
        const file = await this.context.loadMedia(brandId, element).catch((error: unknown) => {
          throw new MediaUnreadable('A media file could not be read.', { cause: error });
        });
        files.push(file);
        checkImage(file);
      }
      const images: EmbeddedImage[] = [];
      for (const file of files) {
        const blob = await file.blob();
        const { data } = await this.session.call((agent) => agent.uploadBlob(blob, { encoding: file.type }));
        const aspectRatio = imageSize(await file.range(0, file.size), file.type);
        images.push({ image: data.blob, alt, ...(aspectRatio ? { aspectRatio } : {}) });
      }
      return images;
    } finally {
      await Promise.all(files.map((file) => file.release()));
    }
  }

  /** Facets for the text's links, hashtags and the mentions whose handle resolves to a DID. */
  private async facetsOf(text: string): Promise<{ facets?: unknown[] }> {
    const { RichText } = await import('./atproto.js');
    const rich = new RichText({ text });
    await rich.detectFacets(await this.session.ready());
    const facets = usableFacets(rich.facets);
    return facets.length > 0 ? { facets } : {};
  }

  private failure(error: unknown, what: string): FailedOutcome {
    return classifyBlueskyFailure(error, {
      what,
      account: this.connection.account,
      endpoint: this.connection.endpoint,
      timeoutMs: this.context.timeoutMs,
      nowMs: this.context.clock.now(),
      hide: (text) => this.session.hide(text),
      log: this.context.log,
    });
  }
}

export const openBluesky: OpenConnector = (connection, context) => new BlueskyPublisher(connection, context);
