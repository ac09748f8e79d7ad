/**
 * Several `serve` instances on one PostgreSQL database (the built program, `node dist/main.js serve`,
 * each with its own data directory): does adding an instance lower the total? Store transactions take
 * advisory locks across instances (src/store/postgres/sql.ts), so a lock convoy would show here as a
 * total that falls with more instances. The workspace: `brands` brands of 3 channels each, one user
 * who may see them all. Two figures, each with 1, 2 and 3 instances:
 *
 * - REST create_post throughput: `inFlight` requests at once in all, spread round-robin over the first
 *   k of three running instances and over the brands (QUEUE / SCHEDULE / DRAFT in turn, as
 *   bench/stdio-throughput.ts sends them), in slices that take k = 1, 2, 3 in turn over several rounds,
 *   so that the machine's noisy moments fall on each alike. The posts a slice created are deleted after.
 * - Delivery throughput: k fresh instances, warmed up on `warmup` posts each; then `posts` SCHEDULE
 *   posts, already due, spread over the brands (inserted in bulk), the sandbox publisher; each instance
 *   is woken by one create_post; timed from the wake to the last body in the sandbox outbox (counted at
 *   the publisher), checked exactly once. Repeated, k in rotating order.
 *
 * Each also samples how many of the server's backends wait for one of the store's advisory locks.
 */
import { cpus } from 'node:os';
import { Agent, request } from 'undici';
import { formatLocalTime } from '../src/domain/time.js';
import { openLocalRuntime } from '../src/local-runtime.js';
import { importWorkspace } from '../src/service/workspace.js';
import {
  BenchSql,
  type LockWaits,
  type PostgresServer,
  postgresCpuMs,
  sampleLockWaits,
} from './lib/postgres.js';
import { contextSwitches, cpuMs, sleep, tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';
import { threeChannelBrand } from './lib/seed.js';
import { type ServeInstance, startServe } from './lib/serve.js';
import { median, rounded, summary } from './lib/stats.js';
import { machineReference } from './postgres-machine.js';
import { createPostArgs } from './stdio-throughput.js';

const API_KEY = 'spk_bench-postgres-instances-0123456789';
const TIMEZONE = 'America/New_York';
const COUNTS = [1, 2, 3] as const;

/** A SCHEDULE time a day ahead, in whole minutes: planned, never due during the benchmark. */
const dayAhead = () => `${formatLocalTime(Date.now() + 86_400_000, TIMEZONE).slice(0, 17)}00`;

interface Workspace {
  userId: string;
  brands: Array<{ brandId: number; collectionId: number }>;
}

export async function seedWorkspace(url: string, brands: number): Promise<Workspace> {
  const runtime = await openLocalRuntime({ dataDir: tempDir(), demo: false, database: { url, poolSize: 2 } });
  try {
    const titles = Array.from({ length: brands }, (_, i) => `Bench Roasters ${i + 1}`);
    const ids = await importWorkspace(runtime.store, runtime.clock, {
      brands: titles.map((title) => threeChannelBrand(title, TIMEZONE, ['09:00', '12:00', '17:00'])),
      users: [{ name: 'Bench', timezone: TIMEZONE, apiKey: API_KEY, brands: titles }],
    });
    return {
      userId: ids.users[0]!.id,
      brands: ids.brands.map((brand) => ({ brandId: brand.id, collectionId: brand.collections[0]!.id })),
    };
  } finally {
    await runtime.close();
  }
}

/** A REST client of the instances: one keep-alive agent, create_post by POST. */
class RestClient {
  private readonly agent = new Agent({ connections: 64, pipelining: 1 });

  constructor(private readonly ws: Workspace) {}

  /** create_post's arguments of bench/stdio-throughput.ts, the i-th to brand i (round-robin). */
  args(i: number, run: string, nowMs: number): Record<string, unknown> {
    const brand = this.ws.brands[i % this.ws.brands.length]!;
    return { ...createPostArgs(i, run, nowMs), ...brand };
  }

  /**
   * One request that an instance answers after checking the key: until one check has succeeded, the
   * instance counts checks under way against its limit of failed attempts (src/http/auth-throttle.ts),
   * and a burst of more than 20 requests from one address would get 429 for the rest.
   */
  async introduce(instance: ServeInstance): Promise<void> {
    const response = await request(`${instance.url}/v1/me`, {
      dispatcher: this.agent,
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`GET /v1/me: ${response.statusCode} ${text}`);
  }

  /** create_post of `args` (a brand and collection of the workspace among them). */
  async createPost(instance: ServeInstance, args: Record<string, unknown>): Promise<{ id: number }> {
    const { brandId, collectionId, ...body } = args;
    const response = await request(`${instance.url}/v1/brands/${brandId}/collections/${collectionId}/posts`, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 201) throw new Error(`create_post: ${response.statusCode} ${text}`);
    return (JSON.parse(text) as { data: { id: number } }).data;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function startAll(count: number, url: string): Promise<ServeInstance[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      startServe(tempDir(), { SOCIAL_PUBLISHER_DATABASE_URL: url, SOCIAL_PUBLISHER_DEMO: '0' }),
    ),
  );
}

async function stopAll(instances: readonly ServeInstance[]): Promise<void> {
  await Promise.all(instances.map((instance) => instance.stop()));
}

interface SliceTotals {
  calls: number;
  ms: number;
  instanceCpuMs: number;
  postgresCpuMs: number;
  clientCpuMs: number;
  instanceSwitches: number;
  lockWaits: LockWaits[];
}

/** Lock-wait samples of several slices or runs, pooled. */
function pooledWaits(waits: readonly LockWaits[]): LockWaits {
  const samples = waits.reduce((sum, w) => sum + w.samples, 0);
  const weighted = (pick: (w: LockWaits) => number) =>
    waits.reduce((sum, w) => sum + pick(w) * w.samples, 0) / Math.max(1, samples);
  return {
    samples,
    meanWaiting: Math.round(weighted((w) => w.meanWaiting) * 100) / 100,
    waitingShare: Math.round(weighted((w) => w.waitingShare) * 100) / 100,
    meanWaitingByLock: Object.fromEntries(
      [...new Set(waits.flatMap((w) => Object.keys(w.meanWaitingByLock)))].map((kind) => [
        kind,
        Math.round(weighted((w) => w.meanWaitingByLock[kind] ?? 0) * 100) / 100,
      ]),
    ),
  };
}

/** create_post throughput over REST with 1, 2 and 3 instances taking the requests; see the file's comment. */
async function createPostThroughput(
  url: string,
  sql: BenchSql,
  ws: Workspace,
  options: { seconds: number; warmupSeconds: number; inFlight: number; rounds: number },
): Promise<Figure[]> {
  const instances = await startAll(3, url);
  const client = new RestClient(ws);
  for (const instance of instances) await client.introduce(instance);
  const totals = new Map<number, SliceTotals>(
    COUNTS.map((k) => [
      k,
      {
        calls: 0,
        ms: 0,
        instanceCpuMs: 0,
        postgresCpuMs: 0,
        clientCpuMs: 0,
        instanceSwitches: 0,
        lockWaits: [],
      },
    ]),
  );
  const perSlice = new Map<number, number[]>(COUNTS.map((k) => [k, []]));
  try {
    const baseline = await sql.count('SELECT COALESCE(MAX(id), 0) AS n FROM posts');
    const nowMs = Date.now();
    let next = 0;
    const slice = async (k: number, ms: number, totalsOf?: SliceTotals) => {
      const targets = instances.slice(0, k);
      const cpu = {
        instances: targets.reduce((sum, t) => sum + cpuMs(t.pid), 0),
        postgres: await postgresCpuMs(sql),
        client: cpuMs('self'),
        switches: targets.reduce((sum, t) => sum + contextSwitches(t.pid), 0),
      };
      const sampler = await sampleLockWaits(url);
      const started = performance.now();
      const until = started + ms;
      let calls = 0;
      const worker = async (w: number) => {
        while (performance.now() < until) {
          const i = next++;
          await client.createPost(targets[w % k]!, client.args(i, 'rest', nowMs));
          calls++;
        }
      };
      let elapsed: number;
      let lockWaits: LockWaits;
      try {
        await Promise.all(Array.from({ length: options.inFlight }, (_, w) => worker(w)));
        elapsed = performance.now() - started;
      } finally {
        lockWaits = await sampler.stop();
      }
      if (totalsOf) {
        totalsOf.lockWaits.push(lockWaits);
        totalsOf.calls += calls;
        totalsOf.ms += elapsed;
        totalsOf.instanceCpuMs += targets.reduce((sum, t) => sum + cpuMs(t.pid), 0) - cpu.instances;
        totalsOf.postgresCpuMs += (await postgresCpuMs(sql)) - cpu.postgres;
        totalsOf.clientCpuMs += cpuMs('self') - cpu.client;
        totalsOf.instanceSwitches +=
          targets.reduce((sum, t) => sum + contextSwitches(t.pid), 0) - cpu.switches;
        perSlice.get(k)!.push(calls / (elapsed / 1000));
      }
      // Each slice meets the same (empty) plan: the queue does not grow from one slice to the next.
      await sql.query('DELETE FROM posts WHERE id > $1', [baseline]);
    };
    for (const k of COUNTS) await slice(k, options.warmupSeconds * 1000);
    for (let round = 0; round < options.rounds; round++) {
      for (let j = 0; j < COUNTS.length; j++) {
        const k = COUNTS[(round + j) % COUNTS.length]!;
        await slice(k, (options.seconds * 1000) / options.rounds, totals.get(k));
      }
    }
  } finally {
    await client.close();
    await stopAll(instances);
  }
  const figures: Figure[] = [];
  const cores = cpus().length;
  let previous: number | undefined;
  for (const k of COUNTS) {
    const t = totals.get(k)!;
    const rate = t.calls / (t.ms / 1000);
    const slices = perSlice.get(k)!;
    const details = {
      instances: k,
      cores,
      inFlight: options.inFlight,
      calls: t.calls,
      seconds: t.ms / 1000,
      perSlice: rounded(summary(slices), 1),
      lockWaits: pooledWaits(t.lockWaits),
      cpuUsPerCall: rounded(
        {
          instances: (t.instanceCpuMs * 1000) / t.calls,
          postgres: (t.postgresCpuMs * 1000) / t.calls,
          client: (t.clientCpuMs * 1000) / t.calls,
        },
        0,
      ),
      instanceContextSwitchesPerCall: Math.round((t.instanceSwitches / t.calls) * 10) / 10,
    };
    figures.push({
      name: `PostgreSQL: REST create_post, ${k} serve instance${k > 1 ? 's' : ''} (${cores} cores, ${options.inFlight} in flight, ${ws.brands.length} brands)`,
      value: rate,
      unit: 'calls/s',
      ...(previous === undefined
        ? { bar: '(reference for 2 and 3 instances)' }
        : {
            reference: { name: `${k - 1} instance${k > 2 ? 's' : ''}`, value: previous },
            bar: `≥ 0.95× ${k - 1} (adding one never lowers the total)`,
            ratio: rate / previous,
            pass: rate / previous >= 0.95,
          }),
      details,
    });
    previous = rate;
  }
  return figures;
}

interface DeliveryRun {
  instances: number;
  seconds: number;
  settledSeconds: number;
  deliveriesPerSecond: number;
  byInstance: number[];
  /** CPU time per delivery (µs) of the instances and of the PostgreSQL server. */
  cpuUsPerDelivery: { instances: number; postgres: number };
  /** Context switches of the instances per delivery. */
  switchesPerDelivery: number;
  lockWaits: LockWaits;
  exactlyOnce: boolean;
  checks: Record<string, number>;
}

/** The previous batch's posts (and their deliveries) and the outbox go. */
async function clearDeliveries(sql: BenchSql): Promise<void> {
  await sql.query('DELETE FROM posts');
  await sql.query('TRUNCATE sandbox_outbox');
  await sql.query('VACUUM (ANALYZE) posts, deliveries, sandbox_outbox');
}

/**
 * `posts` posts due a second ago (post i to brand i, round-robin) delivered by the running `instances`,
 * woken by one create_post each (planned a day ahead): timed from the wake to the last body in the
 * outbox, and until every post is settled.
 */
async function deliverBatch(
  url: string,
  sql: BenchSql,
  ws: Workspace,
  instances: readonly ServeInstance[],
  client: RestClient,
  posts: number,
): Promise<DeliveryRun> {
  const nowMs = Date.now();
  await sql.query(
    `INSERT INTO posts (brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms,
       content_hash, created_at_ms, updated_at_ms)
     SELECT ($2::bigint[])[1 + i % cardinality($2)], ($3::bigint[])[1 + i % cardinality($3)], $1,
       'SCHEDULE', 'scheduled',
       json_build_object('publishMode', 'SCHEDULE', 'caption', 'Bench delivery ' || i || ': this week''s single origin.'),
       $4::bigint - 1000, md5(i::text), $4::bigint, $4::bigint
     FROM generate_series(0, $5::int - 1) i`,
    [
      ws.userId,
      ws.brands.map((brand) => brand.brandId),
      ws.brands.map((brand) => brand.collectionId),
      nowMs,
      posts,
    ],
  );
  const expected = posts * 3;
  const cpu = {
    instances: instances.reduce((sum, instance) => sum + cpuMs(instance.pid), 0),
    postgres: await postgresCpuMs(sql),
    switches: instances.reduce((sum, instance) => sum + contextSwitches(instance.pid), 0),
  };
  const sampler = await sampleLockWaits(url);
  try {
    const started = Date.now();
    const startedAt = performance.now();
    // The instances sleep (nothing was due at their last tick): a planned post makes each re-plan.
    await Promise.all(
      instances.map((instance, i) =>
        client.createPost(instance, {
          ...ws.brands[0]!,
          publishMode: 'SCHEDULE',
          scheduledAt: dayAhead(),
          caption: `Wake ${i} ${started}`,
        }),
      ),
    );
    const deadline = performance.now() + 300_000;
    for (;;) {
      const sent = await sql.count(`SELECT COUNT(*) AS n FROM sandbox_outbox WHERE kind = 'delivery'`);
      if (sent >= expected) break;
      if (performance.now() > deadline) throw new Error(`only ${sent} of ${expected} deliveries after 300 s`);
      await sleep(50);
    }
    const lastRecorded = await sql.count(
      `SELECT MAX(recorded_at_ms) AS n FROM sandbox_outbox WHERE kind = 'delivery'`,
    );
    for (;;) {
      const open = await sql.count(
        `SELECT COUNT(*) AS n FROM posts WHERE status IN ('scheduled', 'publishing') AND due_at_ms < $1`,
        [started],
      );
      if (open === 0) break;
      if (performance.now() > deadline) throw new Error(`${open} posts not settled after 300 s`);
      await sleep(50);
    }
    const settledSeconds = (performance.now() - startedAt) / 1000;
    const lockWaits = await sampler.stop();
    const cpuUsPerDelivery = {
      instances: Math.round(
        ((instances.reduce((sum, instance) => sum + cpuMs(instance.pid), 0) - cpu.instances) * 1000) /
          expected,
      ),
      postgres: Math.round((((await postgresCpuMs(sql)) - cpu.postgres) * 1000) / expected),
    };
    const switchesPerDelivery =
      Math.round(
        ((instances.reduce((sum, instance) => sum + contextSwitches(instance.pid), 0) - cpu.switches) /
          expected) *
          10,
      ) / 10;
    const seconds = (lastRecorded - started) / 1000;
    const checks = {
      outbox: await sql.count(`SELECT COUNT(*) AS n FROM sandbox_outbox WHERE kind = 'delivery'`),
      sends: await sql.count(`SELECT SUM(sends) AS n FROM sandbox_outbox WHERE kind = 'delivery'`),
      deliveriesSent: await sql.count(`SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sent'`),
      deliveries: await sql.count('SELECT COUNT(*) AS n FROM deliveries'),
      postsPublished: await sql.count(`SELECT COUNT(*) AS n FROM posts WHERE status = 'published'`),
    };
    const owners = await sql.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM jobs WHERE kind = 'send' AND status = 'done' GROUP BY owner ORDER BY n DESC`,
    );
    return {
      instances: instances.length,
      seconds,
      settledSeconds,
      deliveriesPerSecond: expected / seconds,
      byInstance: owners.map((row) => Number(row.n)),
      cpuUsPerDelivery,
      switchesPerDelivery,
      lockWaits,
      exactlyOnce:
        checks.outbox === expected &&
        checks.sends === expected &&
        checks.deliveries === expected &&
        checks.deliveriesSent === expected &&
        checks.postsPublished === posts,
      checks,
    };
  } finally {
    await sampler.stop();
  }
}

/**
 * One run of the delivery benchmark with `k` fresh instances: a warm-up batch of `warmup` posts per
 * instance (each process compiles its hot paths once: counted, that would weigh on more instances),
 * then the measured batch.
 */
async function deliveryRun(
  url: string,
  sql: BenchSql,
  ws: Workspace,
  k: number,
  options: { posts: number; warmup: number },
): Promise<DeliveryRun> {
  await clearDeliveries(sql);
  const instances = await startAll(k, url);
  const client = new RestClient(ws);
  try {
    for (const instance of instances) await client.introduce(instance);
    await deliverBatch(url, sql, ws, instances, client, options.warmup * k);
    await clearDeliveries(sql);
    return await deliverBatch(url, sql, ws, instances, client, options.posts);
  } finally {
    await client.close();
    await stopAll(instances);
  }
}

export async function deliveryThroughput(
  url: string,
  sql: BenchSql,
  ws: Workspace,
  options: { posts: number; warmup: number; repeats: number },
): Promise<Figure[]> {
  const runs: DeliveryRun[] = [];
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    for (let j = 0; j < COUNTS.length; j++) {
      const k = COUNTS[(repeat + j) % COUNTS.length]!;
      const run = await deliveryRun(url, sql, ws, k, options);
      process.stderr.write(
        `  deliveries, ${k} instance(s): ${run.seconds.toFixed(2)} s (${Math.round(run.deliveriesPerSecond)}/s), settled ${run.settledSeconds.toFixed(2)} s, by instance ${run.byInstance.join('/')}, CPU µs/delivery ${run.cpuUsPerDelivery.instances} + ${run.cpuUsPerDelivery.postgres} (PostgreSQL), ${run.switchesPerDelivery} context switches/delivery, waiting for the lock ${run.lockWaits.meanWaiting.toFixed(1)} (by lock: ${JSON.stringify(run.lockWaits.meanWaitingByLock)})${run.exactlyOnce ? '' : ' NOT EXACTLY ONCE'}\n`,
      );
      runs.push(run);
    }
  }
  const cores = cpus().length;
  const figures: Figure[] = [];
  let previous: number | undefined;
  for (const k of COUNTS) {
    const mine = runs.filter((run) => run.instances === k);
    const rates = mine.map((run) => run.deliveriesPerSecond);
    const rate = median(rates);
    const exactlyOnce = mine.every((run) => run.exactlyOnce);
    const details = {
      instances: k,
      cores,
      deliveriesPerRun: options.posts * 3,
      perSecond: rounded(summary(rates), 0),
      seconds: rounded(summary(mine.map((run) => run.seconds)), 2),
      settledSeconds: rounded(summary(mine.map((run) => run.settledSeconds)), 2),
      byInstance: mine.map((run) => run.byInstance),
      cpuUsPerDelivery: mine.map((run) => run.cpuUsPerDelivery),
      switchesPerDelivery: mine.map((run) => run.switchesPerDelivery),
      lockWaits: pooledWaits(mine.map((run) => run.lockWaits)),
      exactlyOnce,
      checks: mine.map((run) => run.checks),
    };
    figures.push({
      name: `PostgreSQL: deliveries, ${options.posts.toLocaleString('en-US')} due posts × 3 channels, ${k} serve instance${k > 1 ? 's' : ''} (${cores} cores, ${ws.brands.length} brands; median of ${mine.length})`,
      value: rate,
      unit: 'deliveries/s',
      ...(previous === undefined
        ? { bar: '(reference for 2 and 3 instances; none twice)', pass: exactlyOnce }
        : {
            reference: { name: `${k - 1} instance${k > 2 ? 's' : ''}`, value: previous },
            bar: `≥ 0.95× ${k - 1}, none twice`,
            ratio: rate / previous,
            pass: rate / previous >= 0.95 && exactlyOnce,
          }),
      details,
    });
    previous = rate;
  }
  return figures;
}

export async function postgresInstances(
  server: PostgresServer,
  options: {
    seconds?: number;
    warmupSeconds?: number;
    inFlight?: number;
    rounds?: number;
    posts?: number;
    warmup?: number;
    repeats?: number;
    brands?: number;
    machineSeconds?: number;
  } = {},
): Promise<Figure[]> {
  const url = await server.createDatabase();
  const ws = await seedWorkspace(url, options.brands ?? 4);
  const sql = await BenchSql.connect(url);
  try {
    const rest = await createPostThroughput(url, sql, ws, {
      seconds: options.seconds ?? 12,
      warmupSeconds: options.warmupSeconds ?? 1,
      inFlight: options.inFlight ?? 24,
      rounds: options.rounds ?? 6,
    });
    const deliveries = await deliveryThroughput(url, sql, ws, {
      posts: options.posts ?? 1_000,
      // 1,000 posts (3,000 deliveries) per instance: after 100, a fresh instance was still compiling
      // (CPU per delivery at one instance 643–843 µs, against 597–623 µs after 1,000: docs/benchmarks.md).
      warmup: options.warmup ?? 1_000,
      repeats: options.repeats ?? 5,
    });
    // Read beside the instance counts: what adding a process costs on this machine with no service.
    const machine = await machineReference(url, sql, {
      seconds: options.machineSeconds ?? 3,
      repeats: options.repeats ?? 5,
    });
    for (const figure of deliveries) {
      if (figure.reference) figure.details = { ...figure.details, machineRatios: rounded(machine.ratios) };
    }
    return [
      ...rest,
      ...deliveries,
      ...machine.figures,
      ...againstMachine([...rest, ...deliveries], machine.ratios),
    ];
  } finally {
    await sql.close();
  }
}

/**
 * Each 3-against-2 ratio of the service beside the bare clients' own, measured in the same run: above 1,
 * the instances lose less to a third process than the machine itself does (no convoy of ours).
 */
function againstMachine(figures: readonly Figure[], machine: Record<string, number>): Figure[] {
  const bare = machine['3 against 2'];
  if (bare === undefined) return [];
  return figures
    .filter((figure) => figure.ratio !== undefined && / 3 serve instances /.test(figure.name))
    .map((figure) => ({
      name: `${figure.name.replace(/ \(.*$/, '')}: 3 against 2, beside bare clients' 3 against 2`,
      value: figure.ratio! / bare,
      unit: '×',
      reference: { name: 'bare clients', value: bare },
      bar: '(diagnostic: ≥ 1 = the instances lose no more than the machine does)',
      details: { service: figure.ratio, machine: bare },
    }));
}
