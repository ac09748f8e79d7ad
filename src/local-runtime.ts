/**
 * Opens the service on this machine: the store (SQLite in the data directory, or a PostgreSQL server:
 * see store/open-store.ts) and where uploaded media are kept: the media directory under the data
 * directory, or a bucket of object storage (store/s3-media-store.ts). Storage that cannot be used is
 * refused there, with a StorageStartError naming the path and the fix.
 */
import { join } from 'node:path';
import type { Config } from './config.js';
import { logInfo } from './logger.js';
import { UrlDownloader } from './media/url-download.js';
import {
  type Clock,
  type EventRelay,
  type MediaStore,
  type PlanSignal,
  type Store,
  systemClock,
} from './ports.js';
import type { LocalServiceDeps } from './service/local-service.js';
import { MediaDirectory } from './store/media-directory.js';
import { openStore } from './store/open-store.js';
import { SecretBox } from './store/secret-box.js';

export interface LocalRuntime extends LocalServiceDeps {
  store: Store;
  /** Tells the other processes on the store that the plan changed, and hears them (ports.ts). */
  planSignal: PlanSignal;
  /** Passes publishing events (MCP logging) between the processes on the store (ports.ts). */
  eventRelay: EventRelay;
  downloader: UrlDownloader;
  /** Seals and unseals channel secrets (the key is read on first use). */
  secrets: SecretBox;
  close(): Promise<void>;
}

export async function openLocalRuntime(
  config: Pick<Config, 'dataDir' | 'demo'> &
    Partial<Pick<Config, 'mediaUrlAllow' | 'secretKey' | 'publisher' | 'database' | 'mediaBucket'>>,
  options: { clock?: Clock; withDemo?: boolean } = {},
): Promise<LocalRuntime> {
  const clock = options.clock ?? systemClock;
  const { store, planSignal, eventRelay } = await openStore(config);
  try {
    const media = await openMediaStore(config, clock);
    // The workspace module (its schemas, the date library) is loaded only for an empty store.
    if ((options.withDemo ?? true) && config.demo && (await store.isEmpty())) {
      const { ensureDemoWorkspace } = await import('./service/workspace.js');
      await ensureDemoWorkspace(store, clock);
    }
    const downloader = new UrlDownloader({ allow: config.mediaUrlAllow ?? [] });
    const secrets = new SecretBox({ secretKey: config.secretKey, dataDir: config.dataDir }, logInfo);
    return {
      store,
      planSignal,
      eventRelay,
      media,
      clock,
      downloader,
      secrets,
      defaultConnector: config.publisher?.kind ?? 'sandbox',
      // Object storage hands platforms presigned addresses of uploaded media, in every mode.
      publicMedia: media.presign !== undefined,
      close: async () => {
        void downloader.close();
        await planSignal.close();
        await store.close();
      },
    };
  } catch (error) {
    await planSignal.close();
    await store.close();
    throw error;
  }
}

/** The media directory under the data directory, or object storage (SOCIAL_PUBLISHER_MEDIA_S3_BUCKET …). */
async function openMediaStore(
  config: Pick<Config, 'dataDir' | 'mediaBucket'>,
  clock: Clock,
): Promise<MediaStore> {
  const root = join(config.dataDir, 'media');
  if (!config.mediaBucket) return new MediaDirectory(root);
  const [{ S3Bucket }, { S3MediaStore }, { MediaStaging }] = await Promise.all([
    import('./store/s3-bucket.js'),
    import('./store/s3-media-store.js'),
    import('./store/media-staging.js'),
  ]);
  const bucket = new S3Bucket(config.mediaBucket);
  return new S3MediaStore(bucket, config.mediaBucket.bucket, new MediaStaging(join(root, 'staging')), clock);
}
