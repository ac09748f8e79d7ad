/** Connections of the pool lent out for a caller's own use (a transaction, the migrations). */
import type { Pool, PoolClient } from 'pg';

/**
 * A connection of the pool for a caller's own use. The pool stops listening to a connection's errors
 * while it is lent out, and node-postgres raises an 'error' event when the server drops it (a restart,
 * a network cut): unheard, that event would end the process. The statements under way fail all the
 * same, and so does the ROLLBACK after them, which has the connection discarded when given back.
 */
export async function checkOut(pool: Pool): Promise<PoolClient> {
  const client = await pool.connect();
  client.on('error', ignoreLentConnectionError);
  return client;
}

/** Gives back a connection of `checkOut`; `broken` discards it. */
export function giveBack(client: PoolClient, broken?: Error): void {
  client.removeListener('error', ignoreLentConnectionError);
  client.release(broken);
}

function ignoreLentConnectionError(): void {}
