/**
 * The MediaStore port on S3-compatible object storage (SOCIAL_PUBLISHER_MEDIA_S3_BUCKET and the rest). An upload is staged
 * on this machine's disk as for the media directory (hashed, measured, checked), then sent to the bucket
 * in one PUT of known length streamed from the staged file, and copied to `media/<brandId>/<mediaId>`
 * before the media's row is written: no one (a platform with a presigned address, another instance)
 * ever reads part of a file, and an upload refused or interrupted leaves nothing under `media/`.
 * Reading an object streams it into a local file that the reader releases; platforms that fetch media
 * get presigned addresses, signed for one object until a given time.
 */
import { createWriteStream, openAsBlob } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { MediaStorageError } from '../domain/errors.js';
import type { Clock, MediaStore, OpenedMedia, StagedMedia, TransferOptions } from '../ports.js';
import { type MediaStaging, mediaWriteFault } from './media-staging.js';
import type { S3Bucket } from './s3-bucket.js';

/** The stored path of an object: `s3://<bucket>/<key>`, what the media's row keeps. */
const STORED = /^s3:\/\/[^/]+\/(media\/\d+\/[A-Za-z0-9_-]+)$/;

export class S3MediaStore implements MediaStore {
  /** What `stage` measured of each staged file, for the PUT's signed hash. */
  private readonly staged = new Map<string, { sha256: string }>();

  constructor(
    private readonly bucket: S3Bucket,
    private readonly bucketName: string,
    /** Staging and read copies, on this machine's disk (`<data dir>/media/staging`). */
    private readonly staging: MediaStaging,
    private readonly clock: Clock,
  ) {}

  async stage(
    source: AsyncIterable<Uint8Array>,
    limitBytes: number,
    options: TransferOptions & { total?: number | undefined } = {},
  ): Promise<StagedMedia & { token: string }> {
    const staged = await this.staging.stage(source, limitBytes, options);
    if (!staged.tooLarge) this.staged.set(staged.token, { sha256: staged.sha256 });
    return staged;
  }

  stagedRange(token: string, start: number, endExclusive: number): Promise<Uint8Array> {
    return this.staging.range(token, start, endExclusive);
  }

  /**
   * Sends the staged file to `uploads/<token>` in one PUT, then copies it, server-side, to the media's
   * key: what is under `media/…` is always a whole file, even on a server that keeps the part of a PUT
   * it was sent before the connection broke (S3 itself keeps none). The upload key goes once copied;
   * one left by a process that stopped midway names no media (a lifecycle rule may expire `uploads/`).
   */
  async commit(token: string, brandId: number, mediaId: string, type: string): Promise<string> {
    const staged = this.staged.get(token);
    if (staged === undefined) throw new Error(`No staged upload ${token} in this process.`);
    const upload = `uploads/${token}`;
    const key = objectKey(brandId, mediaId);
    try {
      await this.bucket.put(
        upload,
        await openAsBlob(this.staging.path(token), { type }),
        staged.sha256,
        type,
      );
      await this.bucket.copy(upload, key);
    } catch (error) {
      throw new MediaStorageError((error as Error).message, { cause: error });
    } finally {
      await this.bucket.delete(upload).catch(() => undefined);
    }
    await this.discard(token);
    return `s3://${this.bucketName}/${key}`;
  }

  /** The object, streamed into a local file read as it is consumed; `release` deletes that file. */
  async open(brandId: number, mediaId: string, type: string): Promise<OpenedMedia> {
    const path = this.staging.path(`${this.staging.newToken()}.read`);
    const remove = () => rm(path, { force: true }).catch(() => undefined);
    const body = await this.bucket.get(objectKey(brandId, mediaId));
    const out = createWriteStream(path, { flags: 'wx' });
    // Only the file's own errors are storage faults (a broken download is not).
    let writeError: unknown;
    out.once('error', (error) => {
      writeError = error;
    });
    try {
      await pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), out);
    } catch (error) {
      await remove();
      throw error === writeError ? mediaWriteFault(error) : error;
    }
    const blob = await openAsBlob(path, { type });
    let released: Promise<void> | undefined;
    return {
      blob,
      release: () => {
        released ??= remove();
        return released;
      },
    };
  }

  presign(brandId: number, mediaId: string, expiresAtMs: number): Promise<string> {
    return this.bucket.presign(objectKey(brandId, mediaId), this.clock.now(), expiresAtMs);
  }

  async discard(token: string): Promise<void> {
    this.staged.delete(token);
    await this.staging.discard(token);
  }

  async remove(storedPath: string): Promise<void> {
    const key = STORED.exec(storedPath)?.[1];
    if (key) await this.bucket.delete(key).catch(() => undefined);
  }
}

function objectKey(brandId: number, mediaId: string): string {
  return `media/${brandId}/${mediaId}`;
}
