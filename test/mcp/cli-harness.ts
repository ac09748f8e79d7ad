/**
 * Runs the BUILT program (dist/main.js) as a real child process: plain runs with captured output,
 * and MCP sessions over stdio through the SDK's StdioClientTransport, as Claude Desktop starts it.
 * Every process and temp dir made here is cleaned up by `cleanup()` (call it in afterEach).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN_JS = join(PROJECT_ROOT, 'dist', 'main.js');
/** Generous: a child process start is slow on a busy machine. */
export const CHILD_TIMEOUT_MS = 20_000;

/** Fails with a clear message when the program has not been built. */
export function requireBuild(): void {
  if (!existsSync(MAIN_JS)) {
    throw new Error(`${MAIN_JS} is missing: run "npm run build" first (npm test builds before vitest).`);
  }
}

const children = new Set<ChildProcess>();
const clients = new Set<Client>();
const dirs = new Set<string>();

export function tempDir(prefix = 'spm-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

/** The parent's environment without any SOCIAL_PUBLISHER_* setting, plus `extra`. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SOCIAL_PUBLISHER_')) env[key] = value;
  }
  return { ...env, ...extra };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `node dist/main.js ...args`, writes `input` to stdin and closes it, waits for exit. */
export function spawnMain(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [MAIN_JS, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function runMain(args: string[], env: Record<string, string>, input = ''): Promise<RunResult> {
  const child = spawnMain(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin!.on('error', () => {});
  child.stdin!.end(input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`main.js ${args.join(' ')} did not exit within ${CHILD_TIMEOUT_MS} ms; stderr: ${stderr}`),
      );
    }, CHILD_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface StdioSession {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** The server process's id (to kill it as a crash would), null once it has exited. */
  pid(): number | null;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Starts the server over stdio exactly as an MCP host does, and lists its tools. */
export async function connectStdio(env: Record<string, string>): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'cli-smoke-test', version: '1.0.0' });
  clients.add(client);
  try {
    await client.connect(transport, { timeout: CHILD_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`connecting failed: ${(error as Error).message}; server stderr: ${stderr}`);
  }
  await client.listTools(undefined, { timeout: CHILD_TIMEOUT_MS });
  return {
    client,
    stderr: () => stderr,
    pid: () => transport.pid,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: CHILD_TIMEOUT_MS,
      })) as CallToolResult,
    async close() {
      clients.delete(client);
      await client.close();
    },
  };
}

/** Closes every session, kills every child still running and removes every temp dir. */
export async function cleanup(): Promise<void> {
  // What exists now, taken at once: a process the next test starts while clients close is not this one's.
  const ending = { clients: [...clients], children: [...children], dirs: [...dirs] };
  clients.clear();
  children.clear();
  dirs.clear();
  await Promise.all(ending.clients.map((client) => client.close().catch(() => {})));
  for (const child of ending.children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of ending.dirs) rmSync(dir, { recursive: true, force: true });
}

/** Lines that look like a stack trace frame ("    at fn (file:line:col)"). */
export const STACK_FRAME = /^\s+at\s+\S.*[:(]/m;

/** The titles of the brands in a list_brands result. */
export function brandTitles(result: CallToolResult): string[] {
  return (result.structuredContent as { data: Array<{ title: string }> }).data.map((b) => b.title);
}

/** Starts the built `serve` on an ephemeral port; resolves with its URL and the demo key it printed once. */
export async function startServe(
  dataDir: string = tempDir(),
): Promise<{ child: ChildProcess; url: string; key: string; stderr: () => string }> {
  const child = spawnMain(['serve', '--port', '0'], childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir }));
  let stderr = '';
  const ready = new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), CHILD_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /listening on (http:\/\/\S+):/.exec(stderr)?.[1];
      const key = /(spk_[\w-]+)/.exec(stderr)?.[1];
      if (url && key) {
        clearTimeout(timer);
        resolve({ url, key });
      }
    });
  });
  return { child, ...(await ready), stderr: () => stderr };
}
