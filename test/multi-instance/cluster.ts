/**
 * Several `serve` instances of the BUILT program on one PostgreSQL, set up as docs/deploy.md says: one
 * database (test/postgres/harness.ts starts a real server per test file), the same secret key, and one
 * data directory on a "shared volume", reached by each instance through a path of its own (a symbolic
 * link), as hosts mounting one volume in different places would. The workspace is imported and the API
 * key made with the documented commands (`import`, `keys create`). Each instance can be stopped
 * (SIGTERM), killed (SIGKILL) and started again; everything it wrote to stderr is kept.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { CHILD_TIMEOUT_MS, childEnv, requireBuild, runMain, spawnMain, tempDir } from '../mcp/cli-harness.js';
import { type PostgresServer, startPostgres } from '../postgres/harness.js';
import { acmeWorkspaceFile } from '../support/acme-workspace.js';

/**
 * The program's commands in docs/deploy.md's order, as the tests run them (deploy-doc.test.ts holds the
 * document to these: the same commands with the same flags).
 */
export const DEPLOY_COMMANDS = {
  import: (file: string) => ['import', file],
  createKey: (user: string) => ['keys', 'create', '--user', user],
  serve: () => ['serve', '--host', '127.0.0.1', '--port', '0'],
};

export { ACME_CHANNELS as CHANNELS, ACME_TIMEZONE as TIMEZONE } from '../support/acme-workspace.js';
/**
 * Deliveries (or comments) one instance sends at once (SOCIAL_PUBLISHER_SENDS_IN_FLIGHT, set so): the
 * most a kill can leave in doubt.
 */
export const CONCURRENCY = 8;

/** A real PostgreSQL server for the test file's length. */
export function usePostgresServer(): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('The PostgreSQL server did not start.');
    return server;
  };
}

export interface Instance {
  readonly name: string;
  /** http://127.0.0.1:PORT of the running process (a new port after each start). */
  readonly url: string;
  readonly pid: number;
  readonly running: boolean;
  /** Its data directory: a path of its own to the shared volume. */
  readonly dataDir: string;
  start(): Promise<void>;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
  /** Everything this instance wrote to stderr, across its restarts. */
  log(): string;
}

export interface Cluster {
  databaseUrl: string;
  /** The shared volume's real path. */
  sharedDir: string;
  /** The environment every instance is given (its own SOCIAL_PUBLISHER_DATA_DIR aside). */
  env: Record<string, string>;
  apiKey: string;
  instances: Instance[];
  /** Runs one statement on the database. */
  query<R extends Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Stops every instance still running (SIGTERM). */
  stopAll(): Promise<void>;
}

export async function startCluster(
  server: PostgresServer,
  options: { instances: number; env?: Record<string, string> },
): Promise<Cluster> {
  requireBuild();
  const root = tempDir('spm-cluster-');
  const sharedDir = join(root, 'shared-volume');
  mkdirSync(sharedDir);
  const databaseUrl = await server.createDatabase();
  const env = childEnv({
    SOCIAL_PUBLISHER_DATABASE_URL: databaseUrl,
    SOCIAL_PUBLISHER_SECRET_KEY: 'the-same-secret-key-on-every-instance',
    SOCIAL_PUBLISHER_DEMO: '0',
    SOCIAL_PUBLISHER_SENDS_IN_FLIGHT: String(CONCURRENCY),
    ...options.env,
  });
  const onShared = { ...env, SOCIAL_PUBLISHER_DATA_DIR: sharedDir };
  const imported = await runMain(
    DEPLOY_COMMANDS.import(acmeWorkspaceFile(root, `import-${randomBytes(12).toString('hex')}`)),
    onShared,
  );
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  const created = await runMain(DEPLOY_COMMANDS.createKey('Ada'), onShared);
  if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  const apiKey = (JSON.parse(created.stdout) as { key: string }).key;

  const instances = Array.from({ length: options.instances }, (_, i) => {
    const dataDir = join(root, `instance-${i}`);
    symlinkSync(sharedDir, dataDir);
    return instance(`instance-${i}`, { ...env, SOCIAL_PUBLISHER_DATA_DIR: dataDir }, dataDir);
  });
  await Promise.all(instances.map((each) => each.start()));
  const query = async <R extends Record<string, unknown>>(text: string, params: unknown[] = []) => {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<R>(text, params)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    databaseUrl,
    sharedDir,
    env,
    apiKey,
    instances,
    query,
    async stopAll() {
      await Promise.all(instances.filter((each) => each.running).map((each) => each.stop()));
    },
  };
}

function instance(name: string, env: Record<string, string>, dataDir: string): Instance {
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let url = '';
  let log = '';
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const end = async (signal: NodeJS.Signals) => {
    if (running()) child!.kill(signal);
    return exited;
  };
  return {
    name,
    dataDir,
    get url() {
      return url;
    },
    get pid() {
      return child?.pid ?? 0;
    },
    get running() {
      return running();
    },
    async start() {
      if (running()) throw new Error(`${name} is running already`);
      const started = spawnMain(DEPLOY_COMMANDS.serve(), env);
      child = started;
      exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
      let stderr = '';
      url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name} did not start: ${stderr}`)),
          CHILD_TIMEOUT_MS,
        );
        started.stderr!.on('data', (chunk: Buffer) => {
          const text = chunk.toString('utf8');
          stderr += text;
          log += text;
          const found = /listening on (http:\/\/\S+):/.exec(stderr)?.[1];
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        });
        started.once('exit', () => reject(new Error(`${name} exited while starting: ${stderr}`)));
      });
    },
    stop: () => end('SIGTERM'),
    async kill() {
      await end('SIGKILL');
    },
    log: () => log,
  };
}

export { seededRandom } from '../support/seeded-random.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** POSTs a post through the REST API of `baseUrl`; its id, or an Error saying what was answered. */
export async function createPost(
  baseUrl: string,
  apiKey: string,
  body: Record<string, unknown>,
  idempotencyKey: string,
): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/brands/1/collections/1/posts`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const json = (await response.json()) as { data?: { id?: number } };
  if (response.status >= 300) throw new Error(`create answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data!.id!;
}
