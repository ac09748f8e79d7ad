/**
 * The benchmarks of product.md's quality bars (npm run bench). Prints a table, each figure beside its
 * bar, and writes bench/results.json (with --latest, bench/latest.json too: the copy committed).
 *
 *   tsx bench/run.ts [--only cold-start,idle-rss,stdio,create-post,scheduler,on-time,upload,install,postgres] [--quick] [--latest]
 *
 * `postgres` stands for postgres-create-post and postgres-instances, which run on a throwaway PostgreSQL
 * server (test/postgres's harness: `node test/postgres/install.mjs` installs it), started once.
 *
 * --quick shrinks every benchmark (fewer starts, shorter runs, 100k posts at most): for trying changes,
 * not for the README. Expects a fresh build (npm run bench builds first).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { coldStart } from './cold-start.js';
import { createPostLatency } from './create-post-latency.js';
import { idleRss } from './idle-rss.js';
import { installTime } from './install-time.js';
import { type PostgresServer, startBenchPostgres } from './lib/postgres.js';
import { MAIN, removeTempDirs } from './lib/proc.js';
import { type BenchResult, type Figure, machine, table } from './lib/report.js';
import { onTime } from './on-time.js';
import { postgresCreatePostLatency } from './postgres-create-post.js';
import { postgresInstances } from './postgres-instances.js';
import { schedulerThroughput } from './scheduler.js';
import { stdioThroughput } from './stdio-throughput.js';
import { uploadRss } from './upload-rss.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    latest: { type: 'boolean', default: false },
  },
});
const quick = values.quick;

/** The PostgreSQL server of the postgres benchmarks: started on first use, stopped at the end. */
let postgres: Promise<PostgresServer> | undefined;
const postgresServer = (): Promise<PostgresServer> => {
  postgres ??= startBenchPostgres();
  return postgres;
};

const BENCHES: Record<string, () => Promise<Figure[]>> = {
  'cold-start': () => coldStart({ runs: quick ? 5 : 15 }),
  'idle-rss': () => idleRss({ idleSeconds: quick ? 2 : 3 }),
  stdio: () => stdioThroughput(quick ? { seconds: 1, warmupSeconds: 0.3 } : {}),
  'create-post': () =>
    createPostLatency(quick ? { sizes: [10_000, 100_000], calls: 1_000, warmup: 100 } : {}),
  scheduler: () => schedulerThroughput(),
  upload: () => uploadRss(),
  install: () => installTime(),
  'on-time': async () => [
    ...(await onTime({ brands: 100 })),
    ...(quick ? [] : await onTime({ brands: 1_000 })),
  ],
  'postgres-on-time': async () => {
    const server = await postgresServer();
    return [
      ...(await onTime({ brands: 100, databaseUrl: await server.createDatabase() })),
      ...(quick ? [] : await onTime({ brands: 1_000, databaseUrl: await server.createDatabase() })),
    ];
  },
  'postgres-create-post': async () =>
    postgresCreatePostLatency(
      await postgresServer(),
      quick ? { sizes: [10_000, 100_000], calls: 1_000, warmup: 100 } : {},
    ),
  'postgres-instances': async () =>
    postgresInstances(
      await postgresServer(),
      quick ? { seconds: 6, rounds: 3, posts: 300, repeats: 1, machineSeconds: 1 } : {},
    ),
};

/** Names that stand for several benchmarks. */
const GROUPS: Record<string, string[]> = {
  postgres: ['postgres-create-post', 'postgres-instances', 'postgres-on-time'],
};

async function main(): Promise<number> {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run npm run build (npm run bench does).');
  const only = values.only?.split(',').flatMap((name) => GROUPS[name.trim()] ?? [name.trim()]);
  const unknown = only?.filter((name) => !(name in BENCHES)) ?? [];
  if (unknown.length > 0) {
    const known = [...Object.keys(BENCHES), ...Object.keys(GROUPS)];
    throw new Error(`unknown benchmark ${unknown.join(', ')}: ${known.join(', ')}`);
  }
  const results: BenchResult[] = [];
  for (const [bench, run] of Object.entries(BENCHES)) {
    if (only && !only.includes(bench)) continue;
    process.stderr.write(`bench ${bench}…\n`);
    const started = performance.now();
    try {
      results.push({ bench, figures: await run(), seconds: (performance.now() - started) / 1000 });
    } catch (error) {
      const message = (error as Error).stack ?? String(error);
      process.stderr.write(`bench ${bench} failed: ${message}\n`);
      results.push({ bench, figures: [], seconds: (performance.now() - started) / 1000, error: message });
    } finally {
      removeTempDirs();
    }
  }
  await postgres?.then(
    (server) => server.stop(),
    () => undefined,
  );
  const { openDatabase } = await import('../src/store/sqlite/driver.js');
  const probe = openDatabase(':memory:');
  const report = { date: new Date().toISOString(), quick, machine: machine(probe.driver), results };
  probe.close();
  const markdown = table(results);
  const m = report.machine;
  console.log(
    `\n${markdown}\n\nMachine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node} (${m.sqliteDriver}).`,
  );
  const json = `${JSON.stringify({ ...report, table: markdown }, null, 2)}\n`;
  writeFileSync(join(import.meta.dirname, 'results.json'), json);
  if (values.latest) writeFileSync(join(import.meta.dirname, 'latest.json'), json);
  const missed = results.flatMap((r) => r.figures.filter((f) => f.pass === false).map((f) => f.name));
  const failed = results.filter((r) => r.error).map((r) => r.bench);
  if (missed.length > 0) console.log(`\nMissed: ${missed.join('; ')}`);
  if (failed.length > 0) console.log(`Failed to run: ${failed.join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
