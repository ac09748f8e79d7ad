/**
 * The asynchronous Store port this adapter implements, derived from the interfaces of ports.ts: every
 * method returns a promise of what it returns there, sub-stores stay properties, and a transaction hands
 * its work the store bound to it. `Awaited` makes the mapping idempotent, so these types are the same
 * whether ports.ts declares the store synchronous (as it did) or asynchronous (as it does now); once
 * every adapter implements ports.ts's `Store`, this module is one line: re-export those names.
 */
import type {
  ApiKeyStore,
  ConnectionStore,
  DeliveryStore,
  PostStore,
  SandboxOutbox,
  Store,
  TransactionTarget,
} from '../../ports.js';

/** `T` with each method returning a promise of its result; other members as they are. */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

export type AsyncPostStore = Async<PostStore>;
export type AsyncDeliveryStore = Async<DeliveryStore>;
export type AsyncConnectionStore = Async<ConnectionStore>;
export type AsyncApiKeyStore = Async<ApiKeyStore>;
export type AsyncSandboxOutbox = Async<SandboxOutbox>;

type SubStores = 'posts' | 'deliveries' | 'sandbox' | 'connections' | 'apiKeys';

export interface AsyncStore
  extends Omit<Async<Store>, SubStores | 'transaction' | 'tryTransaction' | 'close'> {
  readonly posts: AsyncPostStore;
  readonly deliveries: AsyncDeliveryStore;
  readonly sandbox: AsyncSandboxOutbox;
  readonly connections: AsyncConnectionStore;
  readonly apiKeys: AsyncApiKeyStore;
  /**
   * Runs `work` in one transaction, handing it the store bound to that transaction (`tx`), which it must
   * use for everything: everything or nothing is written. `target` as in the Store port.
   * `tx.transaction(...)` nests as a savepoint.
   */
  transaction<T>(work: (tx: AsyncStore) => Promise<T>, target?: TransactionTarget): Promise<T>;
  tryTransaction(work: (tx: AsyncStore) => Promise<void>, target: TransactionTarget): Promise<boolean>;
  close(): Promise<void>;
}
