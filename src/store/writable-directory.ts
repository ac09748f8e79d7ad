/**
 * The start-up check that a directory the store writes to can be written, by writing to it: mode bits
 * do not tell (root ignores them, a read-only mount overrides them), a write does. A refusal becomes a
 * StorageStartError naming the directory, what needs it and the fix, so that the program refuses to
 * start rather than start and then fail every write.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StorageStartError } from '../domain/errors.js';

export const WRITABLE_FIX = 'Make it writable, or set SOCIAL_PUBLISHER_DATA_DIR to a writable directory.';

/** How the file system refused a write, in the message's words; undefined when it did not refuse. */
export function writeRefusal(error: unknown): 'read-only' | 'not writable by this user' | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EROFS') return 'read-only';
  if (code === 'EACCES' || code === 'EPERM') return 'not writable by this user';
  return undefined;
}

/** Whether the error is the file system saying it has no room (or no quota) left. */
export function isNoSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * Creates the directory and any missing parents one at a time: Node's recursive mkdir can report ENOENT
 * where a read-only parent refused (EROFS), and the message must give the real reason.
 */
function createDirectory(directory: string): void {
  const missing: string[] = [];
  for (let path = directory; !existsSync(path) && dirname(path) !== path; path = dirname(path)) {
    missing.unshift(path);
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      // Another process starting at the same moment may have created it.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Creates `directory` if needed and writes (then removes) a file in it. `role` names it in the message
 * ("data directory"); `purpose` says what is written there. A full disk is not refused here: reads
 * still work, and each write then says the disk is full.
 */
export function assertWritableDirectory(directory: string, role: string, purpose: string): void {
  try {
    createDirectory(directory);
  } catch (error) {
    const refusal = writeRefusal(error);
    const why = refusal ? `its parent directory is ${refusal}` : (error as Error).message;
    throw new StorageStartError(
      `the ${role} ${directory} cannot be created (${why}): ${purpose} Create it, or set SOCIAL_PUBLISHER_DATA_DIR to a writable directory.`,
      { cause: error },
    );
  }
  const probe = join(directory, `.write-probe-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(probe, '', { flag: 'wx' });
  } catch (error) {
    if (isNoSpace(error)) return;
    const refusal = writeRefusal(error);
    const problem = refusal ? `is ${refusal}` : `cannot be written (${(error as Error).message})`;
    throw new StorageStartError(`the ${role} ${directory} ${problem}: ${purpose} ${WRITABLE_FIX}`, {
      cause: error,
    });
  } finally {
    rmSync(probe, { force: true });
  }
}
