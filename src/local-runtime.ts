/**
 * Opens the embedded service: the SQLite store and media directory under the data directory. Storage
 * that cannot be used (a read-only or unwritable directory, a file that is not a database, a disk too
 * full to open the store) is refused here, with a StorageStartError naming the path and the fix.
 */
import { join } from 'node:path';
import type { Config } from './config.js';
import { logInfo } from './logger.js';
import { UrlDownloader } from './media/url-download.js';
import { type Clock, systemClock } from './ports.js';
import type { LocalServiceDeps } from './service/local-service.js';
import { ensureDemoWorkspace } from './service/workspace.js';
import { MediaDirectory } from './store/media-directory.js';
import { SecretBox } from './store/secret-box.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';
import { assertWritableDirectory } from './store/writable-directory.js';

export const DATABASE_FILE = 'social-publisher.sqlite';

export interface LocalRuntime extends LocalServiceDeps {
  store: SqliteStore;
  downloader: UrlDownloader;
  /** Seals and unseals channel secrets (the key is read on first use). */
  secrets: SecretBox;
  close(): void;
}

export function openLocalRuntime(
  config: Pick<Config, 'dataDir' | 'demo'> &
    Partial<Pick<Config, 'mediaUrlAllow' | 'secretKey' | 'publisher'>>,
  options: { clock?: Clock; withDemo?: boolean } = {},
): LocalRuntime {
  const clock = options.clock ?? systemClock;
  assertWritableDirectory(
    config.dataDir,
    'data directory',
    `SQLite needs to write ${DATABASE_FILE} and its -wal/-shm files there.`,
  );
  const store = SqliteStore.open(join(config.dataDir, DATABASE_FILE));
  try {
    const media = new MediaDirectory(join(config.dataDir, 'media'));
    if ((options.withDemo ?? true) && config.demo) ensureDemoWorkspace(store, clock);
    const downloader = new UrlDownloader({ allow: config.mediaUrlAllow ?? [] });
    const secrets = new SecretBox({ secretKey: config.secretKey, dataDir: config.dataDir }, logInfo);
    return {
      store,
      media,
      clock,
      downloader,
      secrets,
      defaultConnector: config.publisher?.kind ?? 'sandbox',
      close: () => {
        void downloader.close();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
