/**
 * Schema migrations, applied in order, each in its own transaction; `PRAGMA user_version` records how
 * many have run. Never edit a released migration: add the next one.
 */
import { rollBackFailed, type SqlDatabase } from './driver.js';

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    timezone TEXT NOT NULL,
    api_key_hash TEXT UNIQUE,
    joined_at_ms INTEGER NOT NULL
  );
  CREATE TABLE brands (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL UNIQUE,
    description TEXT,
    timezone TEXT NOT NULL,
    queue_times TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
  );
  CREATE TABLE user_brands (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    brand_id INTEGER NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, brand_id)
  ) WITHOUT ROWID;
  CREATE TABLE channels (
    id INTEGER PRIMARY KEY,
    brand_id INTEGER NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    UNIQUE (brand_id, name)
  );
  CREATE TABLE collections (
    id INTEGER PRIMARY KEY,
    brand_id INTEGER NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    description TEXT,
    status TEXT NOT NULL DEFAULT 'ACTIVE',
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    UNIQUE (brand_id, title)
  );
  CREATE TABLE collection_channels (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (collection_id, channel_id)
  ) WITHOUT ROWID;
  CREATE TABLE media (
    id TEXT PRIMARY KEY,
    brand_id INTEGER NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    path TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    UNIQUE (brand_id, sha256)
  );
  CREATE TABLE posts (
    id INTEGER PRIMARY KEY,
    brand_id INTEGER NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id),
    publish_mode TEXT NOT NULL,
    status TEXT NOT NULL,
    payload TEXT NOT NULL,
    due_at_ms INTEGER,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
  );
  CREATE INDEX posts_of_brand ON posts (brand_id, id);
  CREATE INDEX posts_planned_by_brand ON posts (brand_id, due_at_ms) WHERE status IN ('queued', 'scheduled');
  CREATE INDEX posts_due ON posts (due_at_ms) WHERE status IN ('queued', 'scheduled', 'publishing');
  `,
  // 2: the publishing engine. A delivery is one post going to one channel; the sandbox outbox records
  // what each platform would receive, once per delivery (the UNIQUE key is what makes it exactly once).
  `
  ALTER TABLE posts ADD COLUMN idempotency_key TEXT;
  ALTER TABLE posts ADD COLUMN content_hash TEXT;
  ALTER TABLE posts ADD COLUMN published_at_ms INTEGER;
  CREATE UNIQUE INDEX posts_idempotency ON posts (brand_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE INDEX posts_content ON posts (brand_id, content_hash, created_at_ms) WHERE content_hash IS NOT NULL;
  CREATE INDEX posts_by_due ON posts (brand_id, due_at_ms);
  DROP INDEX posts_due;
  CREATE INDEX posts_due ON posts (due_at_ms) WHERE status IN ('queued', 'scheduled');
  CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY,
    post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    channel_id INTEGER NOT NULL,
    channel_name TEXT NOT NULL,
    channel_type TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    notes TEXT NOT NULL DEFAULT '[]',
    content TEXT,
    external_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    claimed_at_ms INTEGER,
    sent_at_ms INTEGER,
    comment_status TEXT NOT NULL DEFAULT 'none',
    comment_due_at_ms INTEGER,
    comment_sent_at_ms INTEGER,
    comment_reason TEXT,
    UNIQUE (post_id, channel_id)
  );
  CREATE INDEX deliveries_open ON deliveries (status, id) WHERE status IN ('pending', 'sending');
  CREATE INDEX deliveries_comments_due ON deliveries (comment_due_at_ms) WHERE comment_status IN ('pending', 'sending');
  CREATE TABLE sandbox_outbox (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    delivery_id INTEGER NOT NULL,
    platform TEXT NOT NULL,
    body TEXT NOT NULL,
    recorded_at_ms INTEGER NOT NULL,
    UNIQUE (kind, delivery_id)
  );
  `,
  // 3: partial indexes whose WHERE is exactly what the hot queries ask (SQLite does not see that
  // "status = 'pending'" implies "status IN ('pending', 'sending')").
  `
  DROP INDEX deliveries_open;
  DROP INDEX deliveries_comments_due;
  CREATE INDEX deliveries_pending ON deliveries (id) WHERE status = 'pending';
  CREATE INDEX deliveries_sending ON deliveries (claimed_at_ms) WHERE status = 'sending';
  CREATE INDEX deliveries_comments_pending ON deliveries (comment_due_at_ms) WHERE comment_status = 'pending';
  CREATE INDEX deliveries_comments_sending ON deliveries (id) WHERE comment_status = 'sending';
  `,
  // 4: the queue-slot lookup reads the index alone. SQLite re-checks a partial index's condition on
  // each row (status), which read every planned post's table row; with status in the index it need not.
  `
  DROP INDEX posts_planned_by_brand;
  CREATE INDEX posts_planned_by_brand ON posts (brand_id, due_at_ms, status) WHERE status IN ('queued', 'scheduled');
  `,
  // 5: claims with an owner and a lease. A delivery (or its comment) being sent belongs to the scheduler
  // that claimed it until its lease ends; the owner renews it while it works, and only an expired lease
  // is taken over. Rows left `sending` by an older version have no owner: their lease is over. The
  // sandbox outbox counts every send, so a delivery sent twice shows although its body is kept once.
  `
  ALTER TABLE deliveries ADD COLUMN claim_owner TEXT;
  ALTER TABLE deliveries ADD COLUMN lease_until_ms INTEGER;
  UPDATE deliveries SET lease_until_ms = 0 WHERE status = 'sending' OR comment_status = 'sending';
  DROP INDEX deliveries_sending;
  DROP INDEX deliveries_comments_sending;
  CREATE INDEX deliveries_sending ON deliveries (lease_until_ms) WHERE status = 'sending';
  CREATE INDEX deliveries_comments_sending ON deliveries (lease_until_ms) WHERE comment_status = 'sending';
  ALTER TABLE sandbox_outbox ADD COLUMN sends INTEGER NOT NULL DEFAULT 1;
  `,
  // 6: connected channels. A channel may have a connection (Mastodon, Bluesky, Telegram) whose secret is
  // sealed (AES-256-GCM) or named by an environment variable; a channel keeps why it is INACTIVE, its last
  // error and its last publication. A delivery keeps its public URL, may wait for a retry (rate limits,
  // transient faults) and may have a poll to close later (Telegram). The store gets an id of its own,
  // part of every idempotency key sent to a platform, so two stores never share one.
  `
  ALTER TABLE channels ADD COLUMN status_reason TEXT;
  ALTER TABLE channels ADD COLUMN last_published_at_ms INTEGER;
  ALTER TABLE channels ADD COLUMN last_error TEXT;
  ALTER TABLE channels ADD COLUMN last_error_at_ms INTEGER;
  CREATE TABLE channel_connections (
    channel_id INTEGER PRIMARY KEY REFERENCES channels(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    account TEXT NOT NULL,
    account_id TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    profile_url TEXT,
    settings TEXT NOT NULL DEFAULT '{}',
    capabilities TEXT NOT NULL,
    secret BLOB,
    secret_env TEXT,
    connected_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
  );
  ALTER TABLE deliveries ADD COLUMN url TEXT;
  ALTER TABLE deliveries ADD COLUMN retry_at_ms INTEGER;
  ALTER TABLE deliveries ADD COLUMN poll_close_at_ms INTEGER;
  ALTER TABLE deliveries ADD COLUMN poll_close_status TEXT NOT NULL DEFAULT 'none';
  ALTER TABLE deliveries ADD COLUMN poll_lease_until_ms INTEGER;
  CREATE INDEX deliveries_retry ON deliveries (retry_at_ms) WHERE status = 'pending' AND retry_at_ms IS NOT NULL;
  CREATE INDEX deliveries_polls ON deliveries (poll_close_at_ms) WHERE poll_close_status IN ('pending', 'sending');
  CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  INSERT INTO store_meta (key, value) VALUES ('store_id', lower(hex(randomblob(8))));
  `,
  // 7: the key registry (`keys create|list|revoke`). A user may have several keys; each keeps its hash,
  // a prefix to recognise it by, where it came from, when it was made, last used and revoked. A revoked
  // key stays (its hash too), so that importing the same key again cannot bring it back. The keys of
  // users.api_key_hash move here; SQLite cannot drop that UNIQUE column, so it stays, unused and NULL.
  `
  CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT,
    origin TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    last_used_at_ms INTEGER,
    revoked_at_ms INTEGER
  );
  CREATE INDEX api_keys_of_user ON api_keys (user_id, id);
  INSERT INTO api_keys (user_id, key_hash, prefix, origin, created_at_ms)
    SELECT id, api_key_hash, NULL, 'migrated', joined_at_ms FROM users WHERE api_key_hash IS NOT NULL
    ORDER BY joined_at_ms;
  UPDATE users SET api_key_hash = NULL WHERE api_key_hash IS NOT NULL;
  `,
  // 8: before comment.delay had a limit, a delay of 10^13 s stored a comment due past any date the
  // interface can write, and past what SQLite hands JavaScript as a number: reading that row failed, and
  // with it every list of its brand. Such a time becomes the last one a timestamp can write.
  `
  UPDATE deliveries SET comment_due_at_ms = 253402300799999 WHERE comment_due_at_ms > 253402300799999;
  `,
  // 9: an auto-comment counts its own attempts (it counted its delivery's, and was retried for ever).
  `
  ALTER TABLE deliveries ADD COLUMN comment_attempts INTEGER NOT NULL DEFAULT 0;
  `,
  // 10: one job path. A delivery's send, its auto-comment and its poll's closing were three state
  // machines in columns of the delivery row; each is now a job (and so are media prepared ahead and token
  // refreshes): one claim path, one lease, attempts and state of its own. What was under way carries
  // over: a claim with its owner and lease, a retry at its time, a comment's attempts.
  `
  CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    delivery_id INTEGER REFERENCES deliveries(id) ON DELETE CASCADE,
    post_id INTEGER REFERENCES posts(id) ON DELETE CASCADE,
    channel_id INTEGER NOT NULL,
    status TEXT NOT NULL,
    step TEXT NOT NULL DEFAULT 'run',
    due_at_ms INTEGER NOT NULL,
    owner TEXT,
    lease_until_ms INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    reason TEXT,
    state TEXT NOT NULL DEFAULT '{}',
    finished_at_ms INTEGER
  );
  CREATE UNIQUE INDEX jobs_of_delivery ON jobs (delivery_id, kind) WHERE delivery_id IS NOT NULL;
  CREATE UNIQUE INDEX jobs_prepare ON jobs (post_id, channel_id) WHERE kind = 'prepare';
  CREATE UNIQUE INDEX jobs_refresh ON jobs (channel_id) WHERE kind = 'refresh';
  CREATE INDEX jobs_waiting ON jobs (due_at_ms, id) WHERE status = 'waiting';
  CREATE INDEX jobs_active ON jobs (lease_until_ms) WHERE status = 'active';
  CREATE INDEX jobs_waiting_by_channel ON jobs (channel_id, due_at_ms) WHERE status = 'waiting';
  CREATE TABLE account_limits (
    channel_id INTEGER PRIMARY KEY REFERENCES channels(id) ON DELETE CASCADE,
    until_ms INTEGER NOT NULL
  );
  INSERT INTO jobs (kind, delivery_id, channel_id, status, step, due_at_ms, owner, lease_until_ms, attempts, finished_at_ms)
    SELECT 'send', id, channel_id,
      CASE status WHEN 'pending' THEN 'waiting' WHEN 'sending' THEN 'active' WHEN 'sent' THEN 'done' ELSE 'failed' END,
      'commit', COALESCE(retry_at_ms, claimed_at_ms, 0), claim_owner,
      CASE WHEN status = 'sending' THEN COALESCE(lease_until_ms, 0) END, attempts, sent_at_ms
    FROM deliveries WHERE status IN ('pending', 'sending', 'sent', 'failed') AND content IS NOT NULL;
  INSERT INTO jobs (kind, delivery_id, channel_id, status, due_at_ms, owner, lease_until_ms, attempts, reason, finished_at_ms)
    SELECT 'comment', id, channel_id,
      CASE comment_status WHEN 'pending' THEN 'waiting' WHEN 'sending' THEN 'active' WHEN 'sent' THEN 'done' ELSE 'failed' END,
      COALESCE(comment_due_at_ms, 0), CASE WHEN comment_status = 'sending' THEN claim_owner END,
      CASE WHEN comment_status = 'sending' THEN COALESCE(lease_until_ms, 0) END, comment_attempts, comment_reason,
      comment_sent_at_ms
    FROM deliveries WHERE comment_status <> 'none';
  INSERT INTO jobs (kind, delivery_id, channel_id, status, due_at_ms, lease_until_ms, finished_at_ms)
    SELECT 'close_poll', id, channel_id,
      CASE poll_close_status WHEN 'pending' THEN 'waiting' WHEN 'sending' THEN 'active' WHEN 'closed' THEN 'done' ELSE 'failed' END,
      poll_close_at_ms, CASE WHEN poll_close_status = 'sending' THEN COALESCE(poll_lease_until_ms, 0) END,
      CASE WHEN poll_close_status IN ('closed', 'failed') THEN poll_close_at_ms END
    FROM deliveries WHERE poll_close_status <> 'none' AND poll_close_at_ms IS NOT NULL;
  DROP INDEX IF EXISTS deliveries_pending;
  DROP INDEX IF EXISTS deliveries_sending;
  DROP INDEX IF EXISTS deliveries_comments_pending;
  DROP INDEX IF EXISTS deliveries_comments_sending;
  DROP INDEX IF EXISTS deliveries_retry;
  DROP INDEX IF EXISTS deliveries_polls;
  ALTER TABLE deliveries DROP COLUMN attempts;
  ALTER TABLE deliveries DROP COLUMN claimed_at_ms;
  ALTER TABLE deliveries DROP COLUMN claim_owner;
  ALTER TABLE deliveries DROP COLUMN lease_until_ms;
  ALTER TABLE deliveries DROP COLUMN retry_at_ms;
  ALTER TABLE deliveries DROP COLUMN comment_status;
  ALTER TABLE deliveries DROP COLUMN comment_due_at_ms;
  ALTER TABLE deliveries DROP COLUMN comment_sent_at_ms;
  ALTER TABLE deliveries DROP COLUMN comment_reason;
  ALTER TABLE deliveries DROP COLUMN comment_attempts;
  ALTER TABLE deliveries DROP COLUMN poll_close_at_ms;
  ALTER TABLE deliveries DROP COLUMN poll_close_status;
  ALTER TABLE deliveries DROP COLUMN poll_lease_until_ms;
  `,
  // OAuth sign-ins begun on serve, waiting for their callback (src/oauth/server-sign-in.ts).
  `
  CREATE TABLE oauth_sign_ins (
    state_hash text PRIMARY KEY,
    brand_id INTEGER NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
    sealed BLOB NOT NULL,
    expires_at_ms INTEGER NOT NULL
  );
  CREATE INDEX oauth_sign_ins_expiry ON oauth_sign_ins (expires_at_ms);
  `,
  // A video's duration, measured when it is uploaded (src/media/video-duration.ts), for pre-flight to
  // hold it to each platform's shortest and longest; null where it was not measured (other types, media
  // uploaded before this).
  `
  ALTER TABLE media ADD COLUMN duration_ms INTEGER;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to date. The version is read again under each migration's write lock: several
 * processes may start on one fresh file at once, and each must find what the one before it applied,
 * not apply it a second time.
 */
export function migrate(db: SqlDatabase): void {
  const schemaVersion = (): number => {
    const version = Number(
      (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
    );
    if (version > MIGRATIONS.length) {
      throw new Error(
        `The database has schema version ${version}, newer than this program knows (${MIGRATIONS.length}): upgrade social-publisher-mcp.`,
      );
    }
    return version;
  };
  let version = schemaVersion();
  while (version < MIGRATIONS.length) {
    db.exec('BEGIN IMMEDIATE');
    try {
      version = schemaVersion();
      if (version < MIGRATIONS.length) {
        db.exec(MIGRATIONS[version]!);
        version++;
        db.exec(`PRAGMA user_version = ${version}`);
      }
      db.exec('COMMIT');
    } catch (error) {
      rollBackFailed(db);
      throw error;
    }
  }
}
