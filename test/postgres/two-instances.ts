/**
 * Two instances on one PostgreSQL database, as the tests of concurrency across instances need them: two
 * stores, each with its own pool, on the file's database with the workspace; and a transaction that
 * holds a brand's lock until told to let go, as another instance's would.
 */
import type { Store } from '../../src/ports.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { PostgresDatabases } from './postgres-databases.js';
import { seedWorkspace, type Workspace } from './store-fixture.js';

export async function twoInstances(
  postgres: PostgresDatabases,
): Promise<{ a: PostgresStore; b: PostgresStore; ws: Workspace }> {
  const url = await postgres.database();
  const a = await postgres.open(url);
  const b = await postgres.open(url);
  return { a, b, ws: await seedWorkspace(a) };
}

/**
 * A transaction of `store` on the brand, begun and holding the brand's lock when this resolves, until
 * `release` (which resolves once it has committed).
 */
export async function holdBrand(store: Store, brandId: number): Promise<{ release(): Promise<void> }> {
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let holding!: () => void;
  const holds = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const transaction = store.transaction(
    async () => {
      holding();
      await released;
    },
    { brandId },
  );
  await Promise.race([holds, transaction]);
  return {
    release() {
      letGo();
      return transaction;
    },
  };
}
