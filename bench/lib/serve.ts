/** `serve` processes of the built program, started and stopped by the benchmarks. */
import { type ChildProcess, spawn } from 'node:child_process';
import { MAIN, serverEnv } from './proc.js';

export interface ServeInstance {
  child: ChildProcess;
  pid: number;
  /** The base URL, without `/v1`. */
  url: string;
  /** Everything it logged (stderr). */
  log(): string;
  /** SIGTERM, then waits for it to exit (it finishes its requests and the publishing tick under way). */
  stop(): Promise<void>;
}

/**
 * Starts `node dist/main.js serve --port 0` on `dataDir` with `env` added to the environment (the
 * parent's own SOCIAL_PUBLISHER_* variables left out), resolving once it listens.
 */
export function startServe(dataDir: string, env: Record<string, string> = {}): Promise<ServeInstance> {
  // BENCH_SERVE_NODE_ARGS: flags for the server's node (a CPU profile: --cpu-prof --cpu-prof-dir=DIR).
  const nodeArgs = process.env.BENCH_SERVE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, MAIN, 'serve', '--port', '0'], {
    env: { ...serverEnv(dataDir), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      const url = /listening on (http:\/\/\S+):/.exec(log)?.[1];
      if (url) {
        resolve({
          child,
          pid: child.pid!,
          url,
          log: () => log,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${log}`)));
  });
}
