/**
 * What the machine itself allows when processes are added on PostgreSQL: 1, 2 and 3 bare node-postgres
 * clients (fixtures/pg-client-load.mjs), 8 transactions in flight each as an instance has 8 sends, each
 * transaction of five round trips on rows of its own (no lock shared). No service runs: the fall from 2
 * to 3 processes, if any, is the cost of more processes sharing the cores, the reference beside which
 * the instance benchmark's figures are read.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchSql } from './lib/postgres.js';
import type { Figure } from './lib/report.js';
import { median, rounded, summary } from './lib/stats.js';

const LOAD = fileURLToPath(new URL('./fixtures/pg-client-load.mjs', import.meta.url));
const IN_FLIGHT = 8;
const COUNTS = [1, 2, 3] as const;

interface LoadClient {
  child: ChildProcess;
  run(ms: number): Promise<{ transactions: number; ms: number }>;
}

function startClient(url: string, index: number): Promise<LoadClient> {
  const child = fork(LOAD, {
    env: {
      ...process.env,
      DATABASE_URL: url,
      IN_FLIGHT: String(IN_FLIGHT),
      ROW_OFFSET: String(index * IN_FLIGHT),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // The answer awaited: to the start, then to each run.
  let waiting: { resolve(message: Record<string, number>): void; reject(error: Error): void } | undefined;
  child.on('message', (message) => waiting?.resolve(message as Record<string, number>));
  child.on('exit', (code) => waiting?.reject(new Error(`the load client exited (${code})`)));
  const next = () =>
    new Promise<Record<string, number>>((resolve, reject) => {
      waiting = { resolve, reject };
    });
  return next().then(() => ({
    child,
    run(ms) {
      const answer = next() as Promise<{ transactions: number; ms: number }>;
      child.send({ ms });
      return answer;
    },
  }));
}

/** Transactions per second of `k` clients running at once, summed. */
async function rate(clients: readonly LoadClient[], k: number, ms: number): Promise<number> {
  const answers = await Promise.all(clients.slice(0, k).map((client) => client.run(ms)));
  return answers.reduce((sum, answer) => sum + answer.transactions / (answer.ms / 1000), 0);
}

/**
 * Runs of `seconds` each for 1, 2 and 3 clients, in rotating order, `repeats` times (after one warm-up
 * run of 3): the medians, and the figures 2 against 1 and 3 against 2.
 */
export async function machineReference(
  url: string,
  sql: BenchSql,
  options: { seconds: number; repeats: number },
): Promise<{ figures: Figure[]; ratios: Record<string, number> }> {
  await sql.query('DROP TABLE IF EXISTS machine_load');
  await sql.query('CREATE TABLE machine_load (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0)');
  await sql.query(`INSERT INTO machine_load (id) SELECT i FROM generate_series(0, ${IN_FLIGHT * 3 + 16}) i`);
  const clients = await Promise.all(COUNTS.map((_, index) => startClient(url, index)));
  const ms = options.seconds * 1000;
  try {
    await rate(clients, 3, ms);
    const rates = new Map<number, number[]>(COUNTS.map((k) => [k, []]));
    for (let repeat = 0; repeat < options.repeats; repeat++) {
      for (let j = 0; j < COUNTS.length; j++) {
        const k = COUNTS[(repeat + j) % COUNTS.length]!;
        rates.get(k)!.push(await rate(clients, k, ms));
      }
    }
    const medians = COUNTS.map((k) => median(rates.get(k)!));
    const ratios = { '2 against 1': medians[1]! / medians[0]!, '3 against 2': medians[2]! / medians[1]! };
    const figures = COUNTS.map(
      (k, i): Figure => ({
        name: `PostgreSQL machine reference: bare node-postgres clients, ${k} process${k > 1 ? 'es' : ''}, ${IN_FLIGHT} transactions of 5 round trips in flight each (median of ${options.repeats})`,
        value: medians[i]!,
        unit: 'transactions/s',
        ...(i === 0
          ? { bar: '(no bar: what the machine allows)' }
          : {
              reference: { name: `${k - 1} process${k > 2 ? 'es' : ''}`, value: medians[i - 1]! },
              bar: '(no bar: what the machine allows)',
              ratio: medians[i]! / medians[i - 1]!,
            }),
        details: { processes: k, perSecond: rounded(summary(rates.get(k)!), 0) },
      }),
    );
    return { figures, ratios };
  } finally {
    // A client that already exited (its run failed) has no channel left to be told on.
    for (const client of clients) if (client.child.connected) client.child.send({ end: true });
    await sql.query('DROP TABLE IF EXISTS machine_load');
  }
}
