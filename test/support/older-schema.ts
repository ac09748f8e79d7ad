/**
 * Takes a store back to before the job table (SQLite's migration 10, PostgreSQL's 6), for tests that
 * roll a store back to an older schema version and open it again: the columns of the delivery row that
 * the jobs replaced are back (empty: the tests that use this hold no work under way), the job table is
 * gone. Undoes that migration and the ones after it (the OAuth sign-ins' table: SQLite's 11,
 * PostgreSQL's 7; the media's duration: SQLite's 12, PostgreSQL's 8); the caller undoes the ones after
 * its target version too.
 */
export function beforeJobTable(dialect: 'sqlite' | 'postgres', withCommentAttempts: boolean): string {
  const int = dialect === 'sqlite' ? 'INTEGER' : 'bigint';
  const columns = [
    `attempts integer NOT NULL DEFAULT 0`,
    `claimed_at_ms ${int}`,
    `claim_owner text`,
    `lease_until_ms ${int}`,
    `retry_at_ms ${int}`,
    `comment_status text NOT NULL DEFAULT 'none'`,
    `comment_due_at_ms ${int}`,
    `comment_sent_at_ms ${int}`,
    `comment_reason text`,
    `poll_close_at_ms ${int}`,
    `poll_close_status text NOT NULL DEFAULT 'none'`,
    `poll_lease_until_ms ${int}`,
    ...(withCommentAttempts ? ['comment_attempts integer NOT NULL DEFAULT 0'] : []),
  ];
  return [
    'ALTER TABLE media DROP COLUMN duration_ms;',
    'DROP TABLE IF EXISTS oauth_sign_ins;',
    'DROP TABLE jobs;',
    'DROP TABLE account_limits;',
    ...columns.map((column) => `ALTER TABLE deliveries ADD COLUMN ${column};`),
  ].join('\n');
}
