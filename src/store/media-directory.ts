/**
 * The MediaStore port on a directory: files are streamed into `staging/` while hashed and measured,
 * then renamed into `<brandId>/<mediaId>` once accepted. A rejected or interrupted upload leaves
 * nothing behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { MediaStore, StagedMedia, TransferOptions } from '../ports.js';

/** Enough leading bytes for any type sniffer to decide. */
const HEAD_BYTES = 4100;

export class MediaDirectory implements MediaStore {
  private readonly staging: string;

  constructor(private readonly root: string) {
    this.staging = join(root, 'staging');
    mkdirSync(this.staging, { recursive: true });
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
    const out = createWriteStream(path, { flags: 'wx' });
    // Errors surface through `once(out, 'drain')` and `finished(out)`; without a listener a write still in
    // flight when the transfer fails would be thrown at the process.
    out.on('error', () => undefined);
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
      throw error;
    }
    if (tooLarge) await rm(path, { force: true });
    return { token, size, sha256: hash.digest('hex'), head: Buffer.concat(head), tooLarge };
  }

  async commit(token: string, brandId: number, mediaId: string): Promise<string> {
    const directory = join(this.root, String(brandId));
    await mkdir(directory, { recursive: true });
    const target = join(directory, mediaId);
    await rename(join(this.staging, token), target);
    return target;
  }

  async discard(token: string): Promise<void> {
    await rm(join(this.staging, token), { force: true }).catch(() => undefined);
  }

  async remove(storedPath: string): Promise<void> {
    await rm(storedPath, { force: true }).catch(() => undefined);
  }
}
