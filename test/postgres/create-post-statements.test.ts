/**
 * What create_post sends to PostgreSQL inside its transaction, one round trip each, in order: BEGIN with
 * the brand's lock and plan (and, for QUEUE, the planned times after the run it remembers), the insert
 * that looks for an earlier post it repeats in the same statement, COMMIT (with the NOTIFY that wakes the
 * other instances for a planned post, in the same round trip). The earlier post is read only when it
 * exists.
 */
import { expect, it } from 'vitest';
import { openLocalRuntime } from '../../src/local-runtime.js';
import { resolveLocalUser } from '../../src/service/acting-user.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { usePostgres } from './postgres-databases.js';
import { statementsOf } from './statements-of.js';

const postgres = usePostgres();

/** What each statement create_post sends is called here, by how it begins. */
const LABELS: [RegExp, string][] = [
  [/^BEGIN\b/, 'BEGIN'],
  [/^COMMIT\b/, 'COMMIT'],
  // The wake-up of the other instances goes in COMMIT's round trip (Store.announcePlanChange).
  [/^NOTIFY social_publisher_plan, '[0-9a-f]{16}'; COMMIT$/, 'NOTIFY; COMMIT'],
  [/^INSERT .*\bNOT EXISTS\b/, 'INSERT unless repeated'],
  [/^SELECT DISTINCT due_at_ms\b/, 'planned times'],
  [/^SELECT .* FROM posts WHERE brand_id = \$1 AND idempotency_key = \$2$/, 'earlier post by key'],
];

/** The statements that begin or end the transaction or touch the posts table, one line each. */
function postStatements(texts: readonly string[]): string[] {
  return texts
    .map((text) => text.replace(/\s+/g, ' ').trim())
    .filter((text) => /\bposts\b/.test(text) || /^(BEGIN|COMMIT|NOTIFY)\b/.test(text))
    .map((text) => LABELS.find(([pattern]) => pattern.test(text))?.[1] ?? text);
}

it('sends one statement per round trip: BEGIN (with the planned times of the queue), the insert unless repeated, COMMIT', async () => {
  const url = await postgres.database({ empty: true });
  const runtime = await openLocalRuntime({
    dataDir: makeTempDir(),
    demo: true,
    database: { url, poolSize: 10 },
  });
  try {
    const service = new LocalPublishingService(runtime, await resolveLocalUser(runtime.store, undefined));
    const create = (publishMode: string, caption: string, extra: Record<string, unknown> = {}) =>
      service.createPost({ brandId: 1, collectionId: 1, publishMode, caption, ...extra });
    await create('QUEUE', 'Warm the queue run');
    const queued = await statementsOf(() => create('QUEUE', 'Queued'));
    // The queue's planned times are read with BEGIN, from the end of the run the first call walked.
    expect(postStatements(queued)).toEqual(['BEGIN', 'INSERT unless repeated', 'NOTIFY; COMMIT']);
    expect(queued.find((text) => text.startsWith('BEGIN'))).toMatch(/SELECT DISTINCT due_at_ms FROM posts/);
    const drafted = await statementsOf(() => create('DRAFT', 'Drafted', { idempotencyKey: 'd-1' }));
    expect(postStatements(drafted)).toEqual(['BEGIN', 'INSERT unless repeated', 'COMMIT']);
    // A repeat: the insert stores nothing, then the earlier post is read for the answer.
    let answer: unknown;
    const repeated = await statementsOf(async () => {
      answer = await create('DRAFT', 'Drafted', { idempotencyKey: 'd-1' });
    });
    expect(answer).toMatchObject({ duplicate: true });
    expect(postStatements(repeated)).toEqual([
      'BEGIN',
      'INSERT unless repeated',
      'earlier post by key',
      'COMMIT',
    ]);
  } finally {
    await runtime.close();
  }
});
