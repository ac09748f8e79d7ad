/** A real embedded service on a fresh SQLite file in a temporary data directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Workspace } from '../../src/domain/workspace.js';
import { type LocalRuntime, openLocalRuntime } from '../../src/local-runtime.js';
import { authenticate, resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { type ImportedIds, importWorkspace } from '../../src/service/workspace.js';
import { FakeClock } from './fake-clock.js';

/** 2026-11-21 12:00:00 UTC, a Saturday: 07:00 in New York (EST), 21:00 in Tokyo. */
export const TEST_NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

export interface TestRuntime {
  dataDir: string;
  runtime: LocalRuntime;
  clock: FakeClock;
  /** The service acting as the demo user (or the only user). */
  service: LocalPublishingService;
  /** The service acting as the owner of `apiKey`. */
  serviceFor(apiKey: string): LocalPublishingService;
  importWorkspace(workspace: Workspace): ImportedIds;
  close(): void;
}

export function makeTempDir(prefix = 'spm-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Opens a runtime with the demo workspace (unless `demo: false`) and a fake clock at TEST_NOW. */
export function openTestRuntime(options: { demo?: boolean; now?: number } = {}): TestRuntime {
  const dataDir = makeTempDir();
  const clock = new FakeClock(options.now ?? TEST_NOW);
  const runtime = openLocalRuntime({ dataDir, demo: options.demo ?? true }, { clock });
  let service: LocalPublishingService | undefined;
  // As in stdio mode: upload paths name files on this machine.
  const local = { ...runtime, allowLocalPaths: true };
  return {
    dataDir,
    runtime,
    clock,
    get service() {
      service ??= new LocalPublishingService(local, resolveLocalUser(runtime.store, undefined));
      return service;
    },
    serviceFor: (apiKey) => new LocalPublishingService(local, authenticate(runtime.store, apiKey)),
    importWorkspace: (workspace) => importWorkspace(runtime.store, clock, workspace),
    close() {
      runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
