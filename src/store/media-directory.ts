/**
 * The MediaStore port on a directory: files are staged (media-staging.ts), then renamed into
 * `<brandId>/<mediaId>` once accepted, before the media's row is written. So whoever can see a media id
 * (this process, or another instance sharing the directory on a shared volume) finds its whole file:
 * never a partial one, also after a crash. Files are found by brand and media id under this directory,
 * wherever each instance mounts it.
 */
import { promises as fsPromises, openAsBlob } from 'node:fs'; // read when used (media-staging.ts)
import { join } from 'node:path';
import type { MediaStore, OpenedMedia, StagedMedia, TransferOptions } from '../ports.js';
import { MediaStaging, mediaWriteFault } from './media-staging.js';

export class MediaDirectory implements MediaStore {
  private readonly staging: MediaStaging;

  /** Refuses (StorageStartError) a media directory this process cannot write. */
  constructor(private readonly root: string) {
    this.staging = new MediaStaging(join(root, 'staging'));
  }

  stage(
    source: AsyncIterable<Uint8Array>,
    limitBytes: number,
    options: TransferOptions & { total?: number | undefined } = {},
  ): Promise<StagedMedia & { token: string }> {
    return this.staging.stage(source, limitBytes, options);
  }

  stagedRange(token: string, start: number, endExclusive: number): Promise<Uint8Array> {
    return this.staging.range(token, start, endExclusive);
  }

  async commit(token: string, brandId: number, mediaId: string): Promise<string> {
    const directory = join(this.root, String(brandId));
    const target = join(directory, mediaId);
    try {
      // Not recursive (the root exists since the start): a recursive mkdir reports a read-only file
      // system as ENOENT, which would hide the reason.
      await fsPromises.mkdir(directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      await fsPromises.rename(this.staging.path(token), target);
    } catch (error) {
      throw mediaWriteFault(error);
    }
    return target;
  }

  /** The file as a Blob read from disk as it is consumed: never in memory whole. */
  async open(brandId: number, mediaId: string, type: string): Promise<OpenedMedia> {
    const blob = await openAsBlob(join(this.root, String(brandId), mediaId), { type });
    return { blob, release: async () => {} };
  }

  discard(token: string): Promise<void> {
    return this.staging.discard(token);
  }

  async remove(storedPath: string): Promise<void> {
    await fsPromises.rm(storedPath, { force: true }).catch(() => undefined);
  }
}
