/**
 * A real Bluesky PDS for a test file: test/pds/start.mjs (@atproto/dev-env, PLC + PDS on SQLite,
 * offline) run with Node 22 in a child process. It needs `node test/pds/install.mjs` once (CI runs it).
 *
 *   const pds = await startPds();  // in beforeAll, with a timeout of a minute
 *   …
 *   await pds.stop();              // in afterAll
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { node22 } from './node22.js';

export interface PdsAccount {
  handle: string;
  did: string;
  /** The account's own password (what revoking an app password needs). */
  password: string;
}

export interface TestPds extends PdsAccount {
  /** `http://localhost:<port>`. */
  service: string;
  /** An app password of the first account, named `appPasswordName`. */
  appPassword: string;
  appPasswordName: string;
  /** An access token of the first account's app-password session that expired an hour ago. */
  expiredAccessJwt: string;
  /** A second account, to mention. */
  other: PdsAccount;
  stop(): Promise<void>;
}

const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'pds', 'start.mjs');
const STARTUP_MS = 60_000;

export async function startPds(): Promise<TestPds> {
  if (!existsSync(join(dirname(script), 'node_modules', '@atproto', 'dev-env'))) {
    throw new Error('The test PDS is not installed: run `node test/pds/install.mjs` (CI does).');
  }
  const child = spawn(node22(), [script], {
    cwd: dirname(script),
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, LOG_ENABLED: 'false' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const line = await firstLine(child, () => stderr);
    return { ...(JSON.parse(line) as Omit<TestPds, 'stop'>), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function firstLine(
  child: ChildProcessByStdio<Writable, Readable, Readable>,
  stderr: () => string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`The test PDS did not start within ${STARTUP_MS} ms:\n${stderr()}`)),
      STARTUP_MS,
    );
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      resolve(buffered.slice(0, end));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`The test PDS stopped (${signal ?? code}) before it was ready:\n${stderr()}`));
    });
  });
}
