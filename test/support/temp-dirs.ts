/**
 * Temporary directories of a test file, all removed once the file's tests are done (vitest's setup file
 * `temp-dirs-cleanup.ts`), so that a run leaves nothing in the temp directory, whether or not the test
 * that made one removed it itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

export function makeTempDir(prefix = 'spm-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeMadeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
