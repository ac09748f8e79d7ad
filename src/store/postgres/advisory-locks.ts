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
 * shared by one with a target, which then takes its brand's lock (sql.ts): exclusive for a brand, shared
 * for a post of it. Transactions on posts of one brand run side by side, even on one post (the sends to
 * its channels are recorded at once); the one that settles the post locks its row first
 * (delivery-rows.ts `counts`), so that the last to record sees what the others committed.
 */
export const WRITE_LOCK = 2;

/** 'SPM\1': the high 32 bits of the one-key (bigint) locks of brands. */
const BRAND_NAMESPACE = 0x53504d01;

/** A one-key lock: the namespace, then the id's low 32 bits (ids that share them share a lock: safe). */
function key(namespace: number, id: number): string {
  if (!Number.isSafeInteger(id)) throw new Error(`not an id: ${id}`);
  return String(BigInt(namespace) * 2n ** 32n + (BigInt(id) & 0xffffffffn));
}

/**
 * The statements that take a transaction's locks, in one order for every transaction (the write lock,
 * then the brand's), so that two transactions never wait for each other in a cycle; `ifFree`, the
 * brand's only if it is free now. Plain integers only: they run in a simple query, beside BEGIN, in one
 * round trip.
 */
export function lockStatements(target: TransactionTarget | undefined, ifFree = false): string[] {
  if (!target) return [`SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}, ${WRITE_LOCK})`];
  const brand = key(BRAND_NAMESPACE, target.brandId);
  const shared = target.postId === undefined ? '' : '_shared';
  return [
    `SELECT pg_advisory_xact_lock_shared(${LOCK_NAMESPACE}, ${WRITE_LOCK})`,
    // `ifFree`: the last statement answers whether the brand's lock was taken (`locked`).
    ifFree
      ? `SELECT pg_try_advisory_xact_lock${shared}(${brand}) AS locked`
      : `SELECT pg_advisory_xact_lock${shared}(${brand})`,
  ];
}
