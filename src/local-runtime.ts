/** Opens the embedded service: the SQLite store and media directory under the data directory. */
import { join } from 'node:path';
import type { Config } from './config.js';
import { UrlDownloader } from './media/url-download.js';
import { type Clock, systemClock } from './ports.js';
import type { LocalServiceDeps } from './service/local-service.js';
import { ensureDemoWorkspace } from './service/workspace.js';
import { MediaDirectory } from './store/media-directory.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';

export const DATABASE_FILE = 'social-publisher.sqlite';

export interface LocalRuntime extends LocalServiceDeps {
  store: SqliteStore;
  downloader: UrlDownloader;
  close(): void;
}

export function openLocalRuntime(
  config: Pick<Config, 'dataDir' | 'demo'> & Partial<Pick<Config, 'mediaUrlAllow'>>,
  options: { clock?: Clock; withDemo?: boolean } = {},
): LocalRuntime {
  const clock = options.clock ?? systemClock;
  const store = SqliteStore.open(join(config.dataDir, DATABASE_FILE));
  try {
    const media = new MediaDirectory(join(config.dataDir, 'media'));
    if ((options.withDemo ?? true) && config.demo) ensureDemoWorkspace(store, clock);
    const downloader = new UrlDownloader({ allow: config.mediaUrlAllow ?? [] });
    return {
      store,
      media,
      clock,
      downloader,
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
