/**
 * Ready: spawn → the first `tools/call` answered, the moment a user's assistant can act. A client's
 * own sequence: `initialize`, then `notifications/initialized` and `tools/list`, then one call
 * (`list_brands` here, `echo` for the reference, `@modelcontextprotocol/server-everything`), each sent
 * when the previous answer arrives. Our server on an existing store and on a fresh data directory (where
 * it also creates the schema and the demo workspace), alternating with the reference in the same run;
 * medians of many starts. Each start ends as a client ends it, by closing stdin, so that Node's compile
 * cache is kept as it is for a user. Run on the Node running the bench, and on Node 22 when
 * scripts/node22.mjs has one.
 *
 * Both servers get the environment an MCP host gives a server it starts: the SDK's
 * getDefaultEnvironment() (HOME, PATH, USER and a few more; Claude Desktop does the same), plus our data
 * directory. The bench's own environment can hold more that costs every start alike: this machine sets
 * NODE_EXTRA_CA_CERTS, which Node 20 reads at every start (about 40 ms, before any script runs; Node 22
 * reads it when TLS is first used). A diagnostic row gives both servers the bench's whole environment.
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EVERYTHING, MAIN, ROOT, serverEnv, tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';
import { rounded, summary } from './lib/stats.js';

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const INITIALIZE = line({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
});

interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

/** Milliseconds from spawn() to the answer to the first tools/call; the answer must be a success. */
export function timeToFirstCall(
  node: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  call: Call,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let elapsed: number | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      for (let newline = out.indexOf('\n'); newline >= 0; newline = out.indexOf('\n')) {
        const message = JSON.parse(out.slice(0, newline)) as {
          id?: number;
          error?: unknown;
          result?: unknown;
        };
        out = out.slice(newline + 1);
        if (message.error) {
          reject(new Error(`answer ${message.id}: ${JSON.stringify(message.error)}`));
          child.kill('SIGKILL');
        } else if (message.id === 0) {
          child.stdin.write(
            line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
              line({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          );
        } else if (message.id === 1) {
          child.stdin.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call }));
        } else if (message.id === 2) {
          elapsed = Number(process.hrtime.bigint() - started) / 1e6;
          if ((message.result as { isError?: boolean }).isError) reject(new Error('the call failed'));
          child.stdin.end();
        }
      }
    });
    child.once('error', reject);
    child.once('exit', () => {
      if (elapsed === undefined) reject(new Error('exited before answering the first call'));
      else resolve(elapsed);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.write(INITIALIZE);
  });
}

/** A Node 22 binary when scripts/node22.mjs has or can get one; undefined otherwise. */
function node22(): string | undefined {
  try {
    return execFileSync(process.execPath, [join(ROOT, 'scripts', 'node22.mjs')], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

const LIST_BRANDS: Call = { name: 'list_brands', arguments: {} };
const ECHO: Call = { name: 'echo', arguments: { message: 'ready' } };

type Summary = ReturnType<typeof summary>;

/** The environment an MCP host starts a server with (the SDK's default), plus `extra`. */
function hostEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...getDefaultEnvironment(), ...extra };
}

async function readyOn(node: string, runs: number): Promise<Figure[]> {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const existing = tempDir();
  const dataDir = (dir: string) => ({ SOCIAL_PUBLISHER_DATA_DIR: dir });
  const candidates = [
    {
      name: 'existing store',
      start: () => timeToFirstCall(node, [MAIN], hostEnv(dataDir(existing)), LIST_BRANDS),
    },
    {
      name: 'fresh data dir',
      start: () => timeToFirstCall(node, [MAIN], hostEnv(dataDir(tempDir())), LIST_BRANDS),
    },
    {
      name: 'server-everything',
      start: () => timeToFirstCall(node, [EVERYTHING, 'stdio'], hostEnv(), ECHO),
    },
    {
      name: 'existing store, whole environment',
      start: () => timeToFirstCall(node, [MAIN], serverEnv(existing), LIST_BRANDS),
    },
    {
      name: 'server-everything, whole environment',
      start: () => timeToFirstCall(node, [EVERYTHING, 'stdio'], process.env, ECHO),
    },
  ].map((candidate) => ({ ...candidate, samples: [] as number[] }));
  // Warm the file cache (and the code cache), then alternate so that noise falls on each alike.
  for (const candidate of candidates) {
    await candidate.start();
    await candidate.start();
  }
  for (let run = 0; run < runs; run++) {
    for (const candidate of candidates) candidate.samples.push(await candidate.start());
  }
  const [ours, fresh, everything, oursWhole, everythingWhole] = candidates.map((c) =>
    rounded(summary(c.samples), 1),
  ) as [Summary, Summary, Summary, Summary, Summary];
  const reference = { name: `server-everything, Node ${version}`, value: everything.p50 };
  return [
    {
      name: `ready: spawn → first tools/call answered, existing store, Node ${version} (median)`,
      value: ours.p50,
      unit: 'ms',
      reference,
      bar: '≤ 0.5× server-everything',
      ratio: ours.p50 / everything.p50,
      pass: ours.p50 <= 0.5 * everything.p50,
      details: { runs, samples: ours, everything },
    },
    {
      name: `ready, fresh data dir (schema and demo made), Node ${version} (median)`,
      value: fresh.p50,
      unit: 'ms',
      reference,
      bar: '(diagnostic, no bar)',
      ratio: fresh.p50 / everything.p50,
      details: { runs, samples: fresh },
    },
    {
      name: `ready, existing store, both with the bench's whole environment, Node ${version} (median)`,
      value: oursWhole.p50,
      unit: 'ms',
      reference: { name: `server-everything, same environment`, value: everythingWhole.p50 },
      bar: '(diagnostic, no bar)',
      ratio: oursWhole.p50 / everythingWhole.p50,
      details: { runs, samples: oursWhole, everything: everythingWhole },
    },
  ];
}

export async function coldStart(options: { runs?: number } = {}): Promise<Figure[]> {
  const runs = options.runs ?? 15;
  const figures = await readyOn(process.execPath, runs);
  const newer = node22();
  if (newer && newer !== process.execPath) figures.push(...(await readyOn(newer, runs)));
  return figures;
}
