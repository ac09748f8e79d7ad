/**
 * The MediaStore port on a directory: files are streamed into `staging/` while hashed and measured,
 * flushed to disk, then renamed into `<brandId>/<mediaId>` once accepted, before the media's row is
 * written. So whoever can see a media id (this process, or another instance sharing the directory on a
 * shared volume) finds its whole file: never a partial one, also after a crash. A rejected or interrupted
 * upload leaves nothing behind. A write the disk refuses (full, read-only) is the service's typed storage
 * fault. Files are found by brand and media id under this directory, wherever each instance mounts it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, openAsBlob, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { StorageFullError, StorageReadOnlyError } from '../domain/errors.js';
import type { MediaStore, StagedMedia, TransferOptions } from '../ports.js';
import { assertWritableDirectory, isNoSpace, writeRefusal } from './writable-directory.js';

/** Enough leading bytes for any type sniffer to decide. */
const HEAD_BYTES = 4100;

/** A write to the media directory the file system refused, as the service's storage fault. */
function mediaWriteFault(error: unknown): unknown {
  if (isNoSpace(error)) return new StorageFullError({ cause: error });
  if (writeRefusal(error)) return new StorageReadOnlyError({ cause: error });
  return error;
}

export class MediaDirectory implements MediaStore {
  private readonly staging: string;

  /** Refuses (StorageStartError) a media directory this process cannot write. */
  constructor(private readonly root: string) {
    this.staging = join(root, 'staging');
    assertWritableDirectory(this.staging, 'media directory', 'uploaded media files are kept there.');
    this.removeAbandoned();
  }

  /**
   * Staged files of uploads a stopped process never finished. Only old ones: another process sharing
   * the data directory may be staging a file right now.
   */
  private removeAbandoned(maxAgeMs = 60 * 60_000): void {
    const cutoff = Date.now() - maxAgeMs;
    for (const name of readdirSync(this.staging)) {
      const path = join(this.staging, name);
      try {
        if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
      } catch {
        // Gone already, or not ours to remove: nothing to do.
      }
    }
  }

  async stage(
    source: AsyncIterable<Uint8Array>,
    limitBytes: number,
    options: TransferOptions & { total?: number | undefined } = {},
  ): Promise<StagedMedia & { token: string }> {
    const token = randomBytes(16).toString('hex');
    const path = join(this.staging, token);
    // flush: the bytes are on disk before the file is renamed into place (and its row committed).
    const out = createWriteStream(path, { flags: 'wx', flush: true });
    // Errors surface through `once(out, 'drain')` and `finished(out)`; without a listener a write still in
    // flight when the transfer fails would be thrown at the process. Kept: only the file's own errors are
    // storage faults (a failing source, such as a download, is not).
    let writeError: unknown;
    out.on('error', (error) => {
      writeError ??= error;
    });
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headLength = 0;
    let size = 0;
    let tooLarge = false;
    try {
      for await (const chunk of source) {
        options.signal?.throwIfAborted();
        size += chunk.byteLength;
        if (size > limitBytes) {
          tooLarge = true;
          break;
        }
        if (headLength < HEAD_BYTES) {
          const part = Buffer.from(chunk.subarray(0, HEAD_BYTES - headLength));
          head.push(part);
          headLength += part.length;
        }
        hash.update(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
        options.onProgress?.(size, options.total);
      }
      options.signal?.throwIfAborted();
      out.end();
      await finished(out);
    } catch (error) {
      out.destroy();
      await finished(out).catch(() => undefined);
      await rm(path, { force: true });
      throw error === writeError ? mediaWriteFault(error) : error;
    }
    if (tooLarge) await rm(path, { force: true });
    return { token, size, sha256: hash.digest('hex'), head: Buffer.concat(head), tooLarge };
  }

  async commit(token: string, brandId: number, mediaId: string): Promise<string> {
    const directory = join(this.root, String(brandId));
    const target = join(directory, mediaId);
    try {
      // Not recursive (the root exists since the start): a recursive mkdir reports a read-only file
      // system as ENOENT, which would hide the reason.
      await mkdir(directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      await rename(join(this.staging, token), target);
    } catch (error) {
      throw mediaWriteFault(error);
    }
    return target;
  }

  async read(brandId: number, mediaId: string): Promise<Uint8Array> {
    return readFile(join(this.root, String(brandId), mediaId));
  }

  /** The file as a Blob read from disk as it is consumed: never in memory whole. */
  openBlob(brandId: number, mediaId: string, type: string): Promise<Blob> {
    return openAsBlob(join(this.root, String(brandId), mediaId), { type });
  }

  async discard(token: string): Promise<void> {
    await rm(join(this.staging, token), { force: true }).catch(() => undefined);
  }

  async remove(storedPath: string): Promise<void> {
    await rm(storedPath, { force: true }).catch(() => undefined);
  }
}
