/**
 * Spools a media source into a temporary file, at most the media limit (the REST API takes files, and
 * a file can be streamed from disk without being held in memory). Removed on failure and after use.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { ValidationError } from '../domain/errors.js';
import { message } from '../domain/messages.js';
import type { TransferOptions } from '../ports.js';
import { MEDIA_MAX_BYTES } from '../service/upload-media.js';

export async function spoolToTempFile(
  body: AsyncIterable<Uint8Array>,
  transfer: TransferOptions & { total?: number | undefined } = {},
): Promise<{ path: string; size: number; remove(): Promise<void> }> {
  const path = join(tmpdir(), `social-publisher-upload-${randomBytes(12).toString('hex')}`);
  const remove = () => rm(path, { force: true });
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  // Errors surface through `once` and `finished`; unheard, a late write error would crash the process.
  out.on('error', () => undefined);
  let size = 0;
  try {
    for await (const chunk of body) {
      transfer.signal?.throwIfAborted();
      size += chunk.byteLength;
      if (size > MEDIA_MAX_BYTES) throw ValidationError.single('media', message.mediaTooLarge);
      if (!out.write(chunk)) await once(out, 'drain');
      transfer.onProgress?.(size, transfer.total);
    }
    out.end();
    await finished(out);
  } catch (error) {
    out.destroy();
    await finished(out).catch(() => undefined);
    await remove();
    throw error;
  }
  if (size === 0) {
    await remove();
    throw ValidationError.single('media', message.mediaRequired);
  }
  return { path, size, remove };
}
