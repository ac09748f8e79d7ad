/**
 * The advisory locks this program takes, as PostgreSQL's two-key form (namespace, lock): every key of
 * ours shares one namespace so that no other program's locks on the same database collide with them.
 * PostgreSQL scopes advisory locks to the database, so stores on different databases never wait on
 * each other. Both are transaction-level (`pg_advisory_xact_lock`): released by COMMIT or ROLLBACK,
 * never left behind by a process that died.
 */

/** 'SPM\0' as a 32-bit integer. */
export const LOCK_NAMESPACE = 0x53504d00;

/** Held while the schema is brought up to date: one instance migrates, the others wait, then see it. */
export const MIGRATION_LOCK = 1;

/** Held by every store transaction from its start: write transactions run one at a time (see sql.ts). */
export const WRITE_LOCK = 2;
