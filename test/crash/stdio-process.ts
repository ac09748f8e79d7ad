/**
 * The BUILT program (dist/main.js) over stdio, driven with raw newline-delimited JSON-RPC: full control
 * over what is written (malformed lines too), every byte of stdout kept for inspection, and SIGKILL at
 * any moment. Processes and directories are cleaned up by cli-harness's `cleanup()`.
 */
import type { ChildProcess } from 'node:child_process';
import { childEnv, spawnMain } from '../mcp/cli-harness.js';

export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

export class StdioProcess {
  readonly child: ChildProcess;
  /** Every byte written to stdout, in order. */
  private readonly stdoutChunks: Buffer[] = [];
  private pending = Buffer.alloc(0);
  private stderrText = '';
  private readonly waiters = new Map<string | number, (message: JsonRpcMessage) => void>();
  /** Every complete stdout line, parsed when it is JSON (else undefined). */
  readonly messages: JsonRpcMessage[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 0;

  constructor(dataDir: string, env: Record<string, string> = {}) {
    this.child = spawnMain([], childEnv({ SOCIAL_PUBLISHER_DATA_DIR: dataDir, ...env }));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    this.child.stdin!.on('error', () => {});
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText += chunk;
    });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.stdoutChunks.push(chunk);
      this.pending = Buffer.concat([this.pending, chunk]);
      for (let end = this.pending.indexOf(0x0a); end >= 0; end = this.pending.indexOf(0x0a)) {
        const line = this.pending.subarray(0, end).toString('utf8');
        this.pending = this.pending.subarray(end + 1);
        let message: JsonRpcMessage | undefined;
        try {
          message = JSON.parse(line) as JsonRpcMessage;
        } catch {
          message = undefined;
        }
        if (message && typeof message === 'object') {
          this.messages.push(message);
          const id = message.id;
          if ((typeof id === 'string' || typeof id === 'number') && message.method === undefined) {
            const waiter = this.waiters.get(id);
            this.waiters.delete(id);
            waiter?.(message);
          }
        }
      }
    });
  }

  /** All of stdout so far. */
  stdout(): Buffer {
    return Buffer.concat(this.stdoutChunks);
  }

  stderr(): string {
    return this.stderrText;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Writes one line (a newline is added). */
  writeLine(line: string | Uint8Array): void {
    this.child.stdin!.write(
      typeof line === 'string' ? `${line}\n` : Buffer.concat([line, Buffer.from('\n')]),
    );
  }

  /** Sends a request and resolves with its response (rejects after `timeoutMs`). */
  request(
    method: string,
    params: unknown,
    options: { id?: string | number; timeoutMs?: number } = {},
  ): Promise<JsonRpcMessage> {
    const id = options.id ?? `req-${++this.nextId}`;
    const timeoutMs = options.timeoutMs ?? 20_000;
    const answered = new Promise<JsonRpcMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(id);
        reject(
          new Error(
            `no answer to ${method} ${JSON.stringify(id)} within ${timeoutMs} ms; stderr: ${this.stderrText.slice(-2000)}`,
          ),
        );
      }, timeoutMs);
      this.waiters.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
    this.writeLine(
      JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
    );
    return answered;
  }

  /** Sends a request without waiting; its answer is told to `onAnswer` if it comes. */
  requestNoWait(method: string, params: unknown, onAnswer: (message: JsonRpcMessage) => void): string {
    const id = `req-${++this.nextId}`;
    this.waiters.set(id, onAnswer);
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return id;
  }

  /** The MCP handshake, as a client without any capability. */
  async initialize(): Promise<JsonRpcMessage> {
    const answer = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'fuzz-and-crash-tests', version: '1.0.0' },
    });
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return answer;
  }

  callTool(name: string, args: unknown, timeoutMs?: number): Promise<JsonRpcMessage> {
    return this.request('tools/call', { name, arguments: args }, { timeoutMs });
  }

  /** SIGKILL, and wait until the process is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}
