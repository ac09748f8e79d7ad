/** The PostStore port on SQLite. */
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
import type { SqlValue } from './driver.js';
import type { EpochMap, Row, Sql } from './sql.js';
import type { TransactionScope } from './transaction-scope.js';

const COLUMNS = `id, brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms, idempotency_key, content_hash,
  created_at_ms, updated_at_ms, published_at_ms`;

/** The brand's post with an idempotency key (brand, key). */
const BY_KEY = 'brand_id = ? AND idempotency_key = ?';
/** The brand's posts of one content created since a time, not cancelled (brand, hash, since). */
const RECENT_SAME = "brand_id = ? AND content_hash = ? AND created_at_ms >= ? AND status != 'cancelled'";

function toPost(row: Row): PostRecord {
  return {
    id: Number(row.id),
    brandId: Number(row.brand_id),
    collectionId: Number(row.collection_id),
    userId: String(row.user_id),
    publishMode: String(row.publish_mode) as PostRecord['publishMode'],
    status: String(row.status) as PostStatus,
    payload: JSON.parse(String(row.payload)) as PostRecord['payload'],
    dueAtMs: row.due_at_ms === null ? null : Number(row.due_at_ms),
    idempotencyKey: row.idempotency_key === null ? null : String(row.idempotency_key),
    contentHash: String(row.content_hash ?? ''),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    publishedAtMs: row.published_at_ms === null ? null : Number(row.published_at_ms),
  };
}

/** The WHERE clause and parameters of a filter; the SQL text only varies with which filters are set. */
function where(brandId: number, filter: PostFilter): { sql: string; params: SqlValue[] } {
  const terms = ['brand_id = ?'];
  const params: SqlValue[] = [brandId];
  if (filter.status !== undefined) {
    terms.push('status = ?');
    params.push(filter.status);
  }
  if (filter.collectionId !== undefined) {
    terms.push('collection_id = ?');
    params.push(filter.collectionId);
  }
  if (filter.fromMs !== undefined) {
    terms.push('due_at_ms >= ?');
    params.push(filter.fromMs);
  }
  if (filter.toMs !== undefined) {
    terms.push('due_at_ms < ?');
    params.push(filter.toMs);
  }
  return { sql: terms.join(' AND '), params };
}

export class SqlitePostStore implements PostStore {
  constructor(
    private readonly sql: Sql,
    private readonly scope: TransactionScope,
    /** By brand; exact as of the change epoch, kept exact by this store's writes. */
    private readonly heldRuns: EpochMap<number, HeldQueueRun>,
  ) {}

  heldQueueRun(brandId: number, schedule: string): Promise<HeldQueueRun | undefined> {
    return this.scope.run(() => {
      const run = this.heldRuns.current().get(brandId);
      return run?.schedule === schedule ? { ...run } : undefined;
    });
  }

  rememberHeldQueueRun(brandId: number, run: HeldQueueRun): Promise<void> {
    return this.scope.run(() => {
      this.heldRuns.current().set(brandId, { ...run });
    });
  }

  /**
   * A post of the brand due at `dueAtMs` may have stopped holding that time: the remembered run keeps
   * only what lies after it. (A new post only holds more, so inserts leave the run alone.)
   */
  private mayHaveFreed(row: Row | undefined): void {
    if (!row) return;
    const brandId = Number(row.brand_id);
    const run = this.heldRuns.entries.get(brandId);
    if (!run) return;
    if (row.due_at_ms === null) return;
    const dueAtMs = Number(row.due_at_ms);
    if (dueAtMs <= run.afterMs || dueAtMs >= run.untilMs) return;
    this.heldRuns.entries.set(brandId, { ...run, afterMs: dueAtMs });
  }

  insert(post: NewPost): Promise<number> {
    return this.scope.run(() => this.insertRow(post));
  }

  insertUnlessRepeated(post: NewPost, sameSinceMs: number): Promise<number | undefined> {
    return this.scope.run(() => {
      // Synchronous: nothing runs between the look-up and the insert.
      const earlier =
        post.idempotencyKey === null
          ? this.sql.get(
              `SELECT 1 FROM posts WHERE ${RECENT_SAME}`,
              post.brandId,
              post.contentHash,
              sameSinceMs,
            )
          : this.sql.get(`SELECT 1 FROM posts WHERE ${BY_KEY}`, post.brandId, post.idempotencyKey);
      return earlier ? undefined : this.insertRow(post);
    });
  }

  private insertRow(post: NewPost): number {
    return this.sql.run(
      `INSERT INTO posts (brand_id, collection_id, user_id, publish_mode, status, payload, due_at_ms, idempotency_key,
         content_hash, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      post.createdAtMs,
    );
  }

  find(brandId: number, postId: number): Promise<PostRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(`SELECT ${COLUMNS} FROM posts WHERE brand_id = ? AND id = ?`, brandId, postId);
      return row && toPost(row);
    });
  }

  get(postId: number): Promise<PostRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(`SELECT ${COLUMNS} FROM posts WHERE id = ?`, postId);
      return row && toPost(row);
    });
  }

  findByIdempotencyKey(brandId: number, key: string): Promise<PostRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(`SELECT ${COLUMNS} FROM posts WHERE ${BY_KEY}`, brandId, key);
      return row && toPost(row);
    });
  }

  findRecentSame(brandId: number, contentHash: string, sinceMs: number): Promise<PostRecord | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT ${COLUMNS} FROM posts WHERE ${RECENT_SAME} ORDER BY created_at_ms DESC LIMIT 1`,
        brandId,
        contentHash,
        sinceMs,
      );
      return row && toPost(row);
    });
  }

  count(brandId: number, filter: PostFilter): Promise<number> {
    return this.scope.run(() => {
      const { sql, params } = where(brandId, filter);
      return this.sql.count(`SELECT COUNT(*) AS n FROM posts WHERE ${sql}`, ...params);
    });
  }

  list(brandId: number, filter: PostFilter, window: PageWindow): Promise<PostRecord[]> {
    return this.scope.run(() => {
      const { sql, params } = where(brandId, filter);
      // Posts without a time (drafts without a plan) come last in both orders.
      const order =
        filter.order === 'calendar'
          ? 'due_at_ms IS NULL, due_at_ms ASC, id ASC'
          : 'due_at_ms IS NULL, due_at_ms DESC, id DESC';
      return this.sql
        .all(
          `SELECT ${COLUMNS} FROM posts WHERE ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`,
          ...params,
          window.limit,
          window.offset,
        )
        .map(toPost);
    });
  }

  update(postId: number, changes: PostChanges, nowMs: number): Promise<void> {
    return this.scope.run(() => {
      // The time the post held before is not returned: the brand's run is forgotten.
      const row = this.sql.get(
        `UPDATE posts SET collection_id = ?, publish_mode = ?, status = ?, payload = ?, due_at_ms = ?, content_hash = ?,
         updated_at_ms = ? WHERE id = ? RETURNING brand_id`,
        changes.collectionId,
        changes.publishMode,
        changes.status,
        JSON.stringify(changes.payload),
        changes.dueAtMs,
        changes.contentHash,
        nowMs,
        postId,
      );
      if (row) this.heldRuns.entries.delete(Number(row.brand_id));
    });
  }

  setStatus(
    postId: number,
    status: PostStatus,
    nowMs: number,
    publishedAtMs: number | null = null,
  ): Promise<void> {
    return this.scope.run(() => {
      this.mayHaveFreed(
        this.sql.get(
          `UPDATE posts SET status = ?, updated_at_ms = ?, published_at_ms = COALESCE(?, published_at_ms) WHERE id = ?
         RETURNING brand_id, due_at_ms`,
          status,
          nowMs,
          publishedAtMs,
          postId,
        ),
      );
    });
  }

  finishPublishing(
    postId: number,
    status: PostStatus,
    nowMs: number,
    publishedAtMs: number | null,
  ): Promise<boolean> {
    return this.scope.run(() => {
      // A publishing post holds no queue slot: no held queue run can be affected.
      return (
        this.sql.change(
          `UPDATE posts SET status = ?, updated_at_ms = ?, published_at_ms = COALESCE(?, published_at_ms)
         WHERE id = ? AND status = 'publishing'`,
          status,
          nowMs,
          publishedAtMs,
          postId,
        ) === 1
      );
    });
  }

  remove(postId: number): Promise<void> {
    return this.scope.run(() => {
      this.mayHaveFreed(this.sql.get('DELETE FROM posts WHERE id = ? RETURNING brand_id, due_at_ms', postId));
    });
  }

  plannedTimesFrom(brandId: number, fromMs: number, limit: number): Promise<number[]> {
    return this.scope.run(() => {
      // Read from the index alone (migration 4), as bare values: a long queue reads thousands per call.
      return this.sql
        .column(
          `SELECT DISTINCT due_at_ms FROM posts INDEXED BY posts_planned_by_brand
         WHERE brand_id = ? AND due_at_ms >= ? AND status IN ('queued', 'scheduled')
         ORDER BY due_at_ms LIMIT ?`,
          brandId,
          fromMs,
          limit,
        )
        .map(Number);
    });
  }

  queued(brandId: number, fromMs: number, limit: number): Promise<PostRecord[]> {
    return this.scope.run(() =>
      this.sql
        .all(
          `SELECT ${COLUMNS} FROM posts WHERE brand_id = ? AND due_at_ms >= ? AND status IN ('queued', 'scheduled')
         AND publish_mode = 'QUEUE' ORDER BY due_at_ms LIMIT ?`,
          brandId,
          fromMs,
          limit,
        )
        .map(toPost),
    );
  }

  due(nowMs: number, limit: number, brandId?: number): Promise<PostRecord[]> {
    return this.scope.run(() =>
      (brandId === undefined
        ? this.sql.all(
            `SELECT ${COLUMNS} FROM posts INDEXED BY posts_due WHERE due_at_ms <= ? AND status IN ('queued', 'scheduled') ORDER BY due_at_ms LIMIT ?`,
            nowMs,
            limit,
          )
        : this.sql.all(
            `SELECT ${COLUMNS} FROM posts INDEXED BY posts_planned_by_brand
             WHERE brand_id = ? AND due_at_ms <= ? AND status IN ('queued', 'scheduled') ORDER BY due_at_ms LIMIT ?`,
            brandId,
            nowMs,
            limit,
          )
      ).map(toPost),
    );
  }

  nextDueAtMs(): Promise<number | undefined> {
    return this.scope.run(() => {
      const row = this.sql.get(
        `SELECT MIN(due_at_ms) AS t FROM posts INDEXED BY posts_due WHERE status IN ('queued', 'scheduled')`,
      );
      return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
    });
  }
}
