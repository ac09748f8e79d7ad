/** The PostStore port on PostgreSQL. */
import type {
  HeldQueueRun,
  NewPost,
  PageWindow,
  PostChanges,
  PostFilter,
  PostRecord,
  PostStatus,
  PostStore,
} from '../../ports.js';
import { minimum, nullableNumber, nullableString } from './records.js';
import { literal, PLAN_OF_BRAND, type Row, type Sql, type SqlParam } from './sql.js';

const COLUMNS = `id, brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms, idempotency_key,
  content_hash, created_at_ms, updated_at_ms, published_at_ms`;

/** The columns an insert gives, in the order of `insertedValues` ($1–$10; updated_at_ms is $10 again). */
const INSERTED = `brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms, idempotency_key,
  content_hash, created_at_ms, updated_at_ms`;

function insertedValues(post: NewPost): SqlParam[] {
  return [
    post.brandId,
    post.collectionId,
    post.userId,
    post.publishMode,
    post.status,
    JSON.stringify(post.payload),
    post.dueAtMs,
    post.idempotencyKey,
    post.contentHash,
    post.createdAtMs,
  ];
}

function toPost(row: Row): PostRecord {
  return {
    id: Number(row.id),
    brandId: Number(row.brand_id),
    collectionId: Number(row.collection_id),
    userId: String(row.user_id),
    publishMode: String(row.publish_mode) as PostRecord['publishMode'],
    status: String(row.status) as PostStatus,
    payload: row.payload as PostRecord['payload'],
    dueAtMs: nullableNumber(row.due_at_ms),
    idempotencyKey: nullableString(row.idempotency_key),
    contentHash: String(row.content_hash ?? ''),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    publishedAtMs: nullableNumber(row.published_at_ms),
  };
}

/** The WHERE clause and parameters of a filter; the SQL text only varies with which filters are set. */
function where(brandId: number, filter: PostFilter): { sql: string; params: SqlParam[] } {
  const params: SqlParam[] = [brandId];
  const terms = ['brand_id = $1'];
  const term = (condition: string, value: SqlParam) => {
    params.push(value);
    terms.push(`${condition} $${params.length}`);
  };
  if (filter.status !== undefined) term('status =', filter.status);
  if (filter.collectionId !== undefined) term('collection_id =', filter.collectionId);
  if (filter.fromMs !== undefined) term('due_at_ms >=', filter.fromMs);
  if (filter.toMs !== undefined) term('due_at_ms <', filter.toMs);
  return { sql: terms.join(' AND '), params };
}

/** A post of the brand at or after this due time, and queued or scheduled: it holds a queue slot. */
const PLANNED = `brand_id = $1 AND due_at_ms >= $2 AND status IN ('queued', 'scheduled')`;

/**
 * How many planned times a queue walk's first read asks for (queue-slot.ts), read ahead with BEGIN from
 * the end of the brand's remembered run: the free slot is usually right there.
 */
const READ_AHEAD = 16;

/** The planned times of a brand from a due time on, distinct and in order ($1 brand, $2 from, $3 limit). */
const PLANNED_TIMES = `SELECT DISTINCT due_at_ms FROM posts WHERE ${PLANNED} ORDER BY due_at_ms LIMIT $3`;

/** `PLANNED_TIMES` with its values written in (integers), for a read made with BEGIN. */
function plannedTimesRead(brandId: number, fromMs: number, limit: number): string {
  const values = [brandId, fromMs, limit];
  return PLANNED_TIMES.replace(/\$(\d)/g, (_, n: string) => literal(values[Number(n) - 1]!));
}

/**
 * The runs of held queue slots this instance walked, by brand, each with the brand's `plan_version` (a
 * count of the transactions that could free a planned time, kept by triggers: migrations 2 and 3) read
 * before the walk. A run is trusted while the count is the same, whichever instance changed the plan;
 * one change later, with the times that change freed (`plan_freed`), for the caller to check.
 */
export class QueueRunMemo {
  private readonly runs = new Map<number, { run: HeldQueueRun; version: number }>();

  get(brandId: number): { run: HeldQueueRun; version: number } | undefined {
    return this.runs.get(brandId);
  }

  set(brandId: number, remembered: { run: HeldQueueRun; version: number }): void {
    this.runs.set(brandId, remembered);
  }
}

export class PostgresPostStore implements PostStore {
  /** In a transaction: the plan version read for each brand, and the runs to remember once committed. */
  private readonly versions = new Map<number, number>();
  private readonly pending = new Map<number, { run: HeldQueueRun; version: number }>();

  constructor(
    private readonly sql: Sql,
    private readonly memo: QueueRunMemo,
  ) {}

  /**
   * A run this instance walked, while no change could have freed one of its times since: one read of
   * the brand's plan version instead of walking the run again. Outside a transaction nothing is
   * remembered (a run is remembered only by the transaction that walked it, which holds its brand's lock,
   * and only once it commits: a rolled-back insert frees its slot without counting).
   */
  async heldQueueRun(brandId: number, schedule: string): Promise<HeldQueueRun | undefined> {
    if (!this.sql.inTransaction) return undefined;
    const row =
      this.sql.takePlanAtBegin(brandId)?.row ??
      (await this.sql.get(`${PLAN_OF_BRAND} WHERE id = $1`, brandId));
    if (!row) return undefined;
    const version = Number(row.plan_version);
    this.versions.set(brandId, version);
    const remembered = this.pending.get(brandId) ?? this.memo.get(brandId);
    if (remembered?.run.schedule !== schedule) return undefined;
    if (remembered.version === version) return remembered.run;
    // One change since (one transaction, whichever instance made it): the caller checks what it freed.
    const freed = row.plan_freed;
    return remembered.version + 1 === version && Array.isArray(freed)
      ? { ...remembered.run, freedMs: freed.map(Number) }
      : undefined;
  }

  /**
   * For a transaction that walks the brand's queue: the walk's first read of planned times, from the end
   * of the run this instance remembers, to be made in BEGIN's round trip (`plannedTimesFrom` takes its
   * rows when the walk asks for them). None without a remembered run.
   */
  queueReadAhead(brandId: number): string | undefined {
    const remembered = this.memo.get(brandId);
    return remembered && plannedTimesRead(brandId, remembered.run.untilMs, READ_AHEAD);
  }

  async rememberHeldQueueRun(brandId: number, run: HeldQueueRun): Promise<void> {
    const version = this.versions.get(brandId);
    if (this.sql.inTransaction && version !== undefined) this.pending.set(brandId, { run, version });
  }

  /** The transaction committed: what it walked is remembered for the next ones. */
  committed(): void {
    for (const [brandId, remembered] of this.pending) this.memo.set(brandId, remembered);
    this.pending.clear();
  }

  /** Part of the transaction was undone (a savepoint rolled back): what it walked may count its posts. */
  forgetPending(): void {
    this.pending.clear();
  }

  async insert(post: NewPost): Promise<number> {
    const row = await this.sql.get(
      `INSERT INTO posts (${INSERTED}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id`,
      ...insertedValues(post),
    );
    return Number(row!.id);
  }

  async insertUnlessRepeated(post: NewPost, sameSinceMs: number): Promise<number | undefined> {
    // One statement, one round trip: the look-up and the insert run under the brand's lock (create_post's
    // transaction), so no other transaction inserts a repeat between them.
    const row =
      post.idempotencyKey === null
        ? await this.sql.get(
            `INSERT INTO posts (${INSERTED}) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10
             WHERE NOT EXISTS (SELECT 1 FROM posts WHERE brand_id = $1 AND content_hash = $9
               AND created_at_ms >= $11 AND status != 'cancelled')
             RETURNING id`,
            ...insertedValues(post),
            sameSinceMs,
          )
        : await this.sql.get(
            `INSERT INTO posts (${INSERTED}) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10
             WHERE NOT EXISTS (SELECT 1 FROM posts WHERE brand_id = $1 AND idempotency_key = $8)
             RETURNING id`,
            ...insertedValues(post),
          );
    return row && Number(row.id);
  }

  async find(brandId: number, postId: number): Promise<PostRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS} FROM posts WHERE brand_id = $1 AND id = $2`,
      brandId,
      postId,
    );
    return row && toPost(row);
  }

  async get(postId: number): Promise<PostRecord | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM posts WHERE id = $1`, postId);
    return row && toPost(row);
  }

  async findByIdempotencyKey(brandId: number, key: string): Promise<PostRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS} FROM posts WHERE brand_id = $1 AND idempotency_key = $2`,
      brandId,
      key,
    );
    return row && toPost(row);
  }

  async findRecentSame(
    brandId: number,
    contentHash: string,
    sinceMs: number,
  ): Promise<PostRecord | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS} FROM posts
       WHERE brand_id = $1 AND content_hash = $2 AND created_at_ms >= $3 AND status != 'cancelled'
       ORDER BY created_at_ms DESC, id DESC LIMIT 1`,
      brandId,
      contentHash,
      sinceMs,
    );
    return row && toPost(row);
  }

  async count(brandId: number, filter: PostFilter): Promise<number> {
    const { sql, params } = where(brandId, filter);
    return this.sql.count(`SELECT COUNT(*) AS n FROM posts WHERE ${sql}`, ...params);
  }

  async list(brandId: number, filter: PostFilter, window: PageWindow): Promise<PostRecord[]> {
    const { sql, params } = where(brandId, filter);
    // Posts without a time (drafts without a plan) come last in both orders.
    const order =
      filter.order === 'calendar' ? 'due_at_ms ASC NULLS LAST, id ASC' : 'due_at_ms DESC NULLS LAST, id DESC';
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM posts WHERE ${sql} ORDER BY ${order}
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      ...params,
      window.limit,
      window.offset,
    );
    return rows.map(toPost);
  }

  async update(postId: number, changes: PostChanges, nowMs: number): Promise<void> {
    await this.sql.change(
      `UPDATE posts SET collection_id = $1, publish_mode = $2, status = $3, payload = $4, due_at_ms = $5,
         content_hash = $6, updated_at_ms = $7 WHERE id = $8`,
      changes.collectionId,
      changes.publishMode,
      changes.status,
      JSON.stringify(changes.payload),
      changes.dueAtMs,
      changes.contentHash,
      nowMs,
      postId,
    );
  }

  async setStatus(
    postId: number,
    status: PostStatus,
    nowMs: number,
    publishedAtMs: number | null = null,
  ): Promise<void> {
    await this.sql.change(
      `UPDATE posts SET status = $1, updated_at_ms = $2, published_at_ms = COALESCE($3::bigint, published_at_ms)
       WHERE id = $4`,
      status,
      nowMs,
      publishedAtMs,
      postId,
    );
  }

  async finishPublishing(
    postId: number,
    status: PostStatus,
    nowMs: number,
    publishedAtMs: number | null,
  ): Promise<boolean> {
    const changed = await this.sql.change(
      `UPDATE posts SET status = $1, updated_at_ms = $2, published_at_ms = COALESCE($3::bigint, published_at_ms)
       WHERE id = $4 AND status = 'publishing'`,
      status,
      nowMs,
      publishedAtMs,
      postId,
    );
    return changed === 1;
  }

  async remove(postId: number): Promise<void> {
    await this.sql.change('DELETE FROM posts WHERE id = $1', postId);
  }

  async plannedTimesFrom(brandId: number, fromMs: number, limit: number): Promise<number[]> {
    // Read with BEGIN: as good as a statement now (the brand's lock was held, nothing written since).
    // Its first `limit` times, unless it was cut short of what is asked.
    const ahead = this.sql.takeReadAtBegin(plannedTimesRead(brandId, fromMs, READ_AHEAD));
    if (ahead && (limit <= READ_AHEAD || ahead.length < READ_AHEAD)) {
      return ahead.slice(0, limit).map((row) => Number(row.due_at_ms));
    }
    const rows = await this.sql.all(PLANNED_TIMES, brandId, fromMs, limit);
    return rows.map((row) => Number(row.due_at_ms));
  }

  async queued(brandId: number, fromMs: number, limit: number): Promise<PostRecord[]> {
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM posts WHERE ${PLANNED} AND publish_mode = 'QUEUE' ORDER BY due_at_ms, id LIMIT $3`,
      brandId,
      fromMs,
      limit,
    );
    return rows.map(toPost);
  }

  async due(nowMs: number, limit: number, brandId?: number): Promise<PostRecord[]> {
    const rows =
      brandId === undefined
        ? await this.sql.all(
            `SELECT ${COLUMNS} FROM posts WHERE due_at_ms <= $1 AND status IN ('queued', 'scheduled')
             ORDER BY due_at_ms, id LIMIT $2`,
            nowMs,
            limit,
          )
        : await this.sql.all(
            `SELECT ${COLUMNS} FROM posts WHERE brand_id = $3 AND due_at_ms <= $1 AND status IN ('queued', 'scheduled')
             ORDER BY due_at_ms, id LIMIT $2`,
            nowMs,
            limit,
            brandId,
          );
    return rows.map(toPost);
  }

  async nextDueAtMs(): Promise<number | undefined> {
    return minimum(
      await this.sql.get(`SELECT MIN(due_at_ms) AS t FROM posts WHERE status IN ('queued', 'scheduled')`),
    );
  }
}
