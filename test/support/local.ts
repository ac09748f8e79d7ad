/** A real embedded service on a fresh SQLite file in a temporary data directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Workspace } from '../../src/domain/workspace.js';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import { authenticate, resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { type ImportedIds, importWorkspace } from '../../src/service/workspace.js';
import type { Sql } from '../../src/store/sqlite/sql.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from './fake-clock.js';

/** 2026-11-21 12:00:00 UTC, a Saturday: 07:00 in New York (EST), 21:00 in Tokyo. */
export const TEST_NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

export interface TestRuntime {
  dataDir: string;
  runtime: LocalRuntime;
  /** The connection of the runtime's store (SQLite here): for tests that run SQL or provoke a fault. */
  sql: Sql;
  clock: FakeClock;
  /** The service acting as the demo user (or the only user). */
  service: LocalPublishingService;
  /** The service acting as the owner of `apiKey`. */
  serviceFor(apiKey: string): Promise<LocalPublishingService>;
  importWorkspace(workspace: Workspace): Promise<ImportedIds>;
  close(): Promise<void>;
}

export function makeTempDir(prefix = 'spm-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Opens a runtime with the demo workspace (unless `demo: false`) and a fake clock at TEST_NOW. */
export async function openTestRuntime(options: { demo?: boolean; now?: number } = {}): Promise<TestRuntime> {
  const dataDir = makeTempDir();
  const clock = new FakeClock(options.now ?? TEST_NOW);
  const runtime = await openLocalRuntime({ dataDir, demo: options.demo ?? true }, { clock });
  // As in stdio mode: upload paths name files on this machine.
  const local = { ...runtime, allowLocalPaths: true };
  /** The service of the store's only user; undefined while it has none (or several). */
  const onlyUserService = async () => {
    const user = await resolveLocalUser(runtime.store, undefined).catch(() => undefined);
    return user && new LocalPublishingService(local, user);
  };
  let service = await onlyUserService();
  if (!(runtime.store instanceof SqliteStore)) throw new Error('The test runtime opens the SQLite store.');
  return {
    dataDir,
    runtime,
    sql: runtime.store.sql,
    clock,
    get service() {
      if (!service) throw new Error('The store has no single user to act as.');
      return service;
    },
    serviceFor: async (apiKey) =>
      new LocalPublishingService(local, await authenticate(runtime.store, apiKey)),
    importWorkspace: async (workspace) => {
      const ids = await importWorkspace(runtime.store, clock, workspace);
      service ??= await onlyUserService();
      return ids;
    },
    async close() {
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
