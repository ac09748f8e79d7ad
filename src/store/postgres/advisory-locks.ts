/**
 * The advisory locks this program takes. Every key of ours lies in namespaces starting 'SPM' so that no
 * other program's locks on the same database collide with them. PostgreSQL scopes advisory locks to the
 * database, so stores on different databases never wait on each other. All are transaction-level
 * (`pg_advisory_xact_lock…`): released by COMMIT or ROLLBACK, never left behind by a process that died.
 */
import type { TransactionTarget } from '../../ports.js';

/** 'SPM\0' as a 32-bit integer: the first key of the two-key locks below. */
export const LOCK_NAMESPACE = 0x53504d00;

/** Held while the schema is brought up to date: one instance migrates, the others wait, then see it. */
export const MIGRATION_LOCK = 1;

/**
 * Held by every store transaction from its start: alone (exclusive) by a transaction without a target,
 * shared by one with a target, which then takes its brand's lock and, for a post, that post's (sql.ts).
 */
export const WRITE_LOCK = 2;

/** 'SPM\1' and 'SPM\2': the high 32 bits of the one-key (bigint) locks of brands and of posts. */
const BRAND_NAMESPACE = 0x53504d01;
const POST_NAMESPACE = 0x53504d02;

/** A one-key lock: the namespace, then the id's low 32 bits (ids that share them share a lock: safe). */
function key(namespace: number, id: number): string {
  if (!Number.isSafeInteger(id)) throw new Error(`not an id: ${id}`);
  return String(BigInt(namespace) * 2n ** 32n + (BigInt(id) & 0xffffffffn));
}

/**
 * The statements that take a transaction's locks, in one order for every transaction (the write lock,
 * then the brand's, then the post's), so that two transactions never wait for each other in a cycle.
 * Plain integers only: they run in a simple query, beside BEGIN, in one round trip.
 */
export function lockStatements(target: TransactionTarget | undefined): string[] {
  if (!target) return [`SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}, ${WRITE_LOCK})`];
  const brand = key(BRAND_NAMESPACE, target.brandId);
  const write = `SELECT pg_advisory_xact_lock_shared(${LOCK_NAMESPACE}, ${WRITE_LOCK})`;
  if (target.postId === undefined) return [write, `SELECT pg_advisory_xact_lock(${brand})`];
  return [
    write,
    `SELECT pg_advisory_xact_lock_shared(${brand})`,
    `SELECT pg_advisory_xact_lock(${key(POST_NAMESPACE, target.postId)})`,
  ];
}
