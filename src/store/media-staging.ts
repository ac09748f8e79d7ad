/**
 * Where uploaded files wait before they are accepted, on this machine's disk, whichever store keeps them
 * afterwards (the media directory renames them into place, object storage sends them to the bucket).
 * A file is streamed into `staging/` while hashed and measured, and flushed to disk; a rejected or
 * interrupted upload leaves nothing behind. A write the disk refuses (full, read-only) is the service's
 * typed storage fault.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
// fs.promises, read when used: node:fs/promises at the start would load its modules (readline among
// them) before the server can answer.
import { createWriteStream, promises as fsPromises, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { StorageFullError, StorageReadOnlyError } from '../domain/errors.js';
import type { StagedMedia, TransferOptions } from '../ports.js';
import { assertWritableDirectory, isNoSpace, writeRefusal } from './writable-directory.js';

/** Enough leading bytes for any type sniffer to decide. */
const HEAD_BYTES = 4100;

/** A write to the media directory the file system refused, as the service's storage fault. */
export function mediaWriteFault(error: unknown): unknown {
  if (isNoSpace(error)) return new StorageFullError({ cause: error });
  if (writeRefusal(error)) return new StorageReadOnlyError({ cause: error });
  return error;
}

export class MediaStaging {
  /** Refuses (StorageStartError) a staging directory this process cannot write. */
  constructor(readonly directory: string) {
    assertWritableDirectory(directory, 'media directory', 'uploaded media files are kept there.');
    this.removeAbandoned();
  }

  /** The staged file of `token` (or another file of this process's making, such as a read copy). */
  path(token: string): string {
    return join(this.directory, token);
  }

  /** A fresh name in the staging directory. */
  newToken(): string {
    return randomBytes(16).toString('hex');
  }

  /**
   * Staged files of uploads a stopped process never finished. Only old ones: another process sharing
   * the data directory may be staging a file right now.
   */
  private removeAbandoned(maxAgeMs = 60 * 60_000): void {
    const cutoff = Date.now() - maxAgeMs;
    for (const name of readdirSync(this.directory)) {
      const path = join(this.directory, name);
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
    const token = this.newToken();
    const path = this.path(token);
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
      await fsPromises.rm(path, { force: true });
      throw error === writeError ? mediaWriteFault(error) : error;
    }
    if (tooLarge) await fsPromises.rm(path, { force: true });
    return { token, size, sha256: hash.digest('hex'), head: Buffer.concat(head), tooLarge };
  }

  /** Bytes `start` to `endExclusive` of a staged file (fewer at its end). */
  async range(token: string, start: number, endExclusive: number): Promise<Uint8Array> {
    const file = await fsPromises.open(this.path(token), 'r');
    try {
      const bytes = Buffer.alloc(Math.max(0, endExclusive - start));
      const { bytesRead } = await file.read(bytes, 0, bytes.length, start);
      return bytes.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  }

  async discard(token: string): Promise<void> {
    await fsPromises.rm(this.path(token), { force: true }).catch(() => undefined);
  }
}
