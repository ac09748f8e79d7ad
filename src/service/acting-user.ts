/**
 * Who acts, and the API keys that say so. Keys are random (`spk_` + 192 bits), shown once when made and
 * stored only as SHA-256 hashes, compared in constant time; a key is never logged. A user may have
 * several keys; a revoked one is refused from the next request on (nothing caches a key's owner).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UnauthenticatedError } from '../domain/errors.js';
import { formatTimestamp } from '../domain/timestamps.js';
import {
  type ApiKeyOrigin,
  type ApiKeyRecord,
  type Clock,
  type Store,
  systemClock,
  type UserRecord,
} from '../ports.js';
import { requestTime } from './request-time.js';

/** How many characters of a key are kept to recognise it by: `spk_` and 8 of its random ones. */
const KEY_PREFIX_LENGTH = 12;
/** A key's last use is written at most this often, so that using a key rarely costs a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** The key with this text and its user, revoked or not; undefined when no key of the store matches. */
async function findKey(
  store: Store,
  apiKey: string,
): Promise<{ key: ApiKeyRecord; user: UserRecord } | undefined> {
  const hash = hashApiKey(apiKey);
  const found = await store.apiKeys.findByHash(hash);
  // The lookup is by hash (an attacker cannot steer it byte by byte); the stored hash is then
  // compared in constant time all the same.
  if (!found || !timingSafeEqual(Buffer.from(found.keyHash, 'hex'), Buffer.from(hash, 'hex'))) {
    return undefined;
  }
  return found;
}

/**
 * The user an active API key belongs to, or an UnauthenticatedError. Records the key's use (to the
 * minute, for `keys list`); a store that cannot write just now does not refuse the key for that.
 */
export async function authenticate(
  store: Store,
  apiKey: string | undefined,
  clock: Clock = systemClock,
): Promise<UserRecord> {
  // Read before the lookup, which may wait for the database: a request's time is when it arrived.
  const now = requestTime(clock);
  const found = apiKey ? await findKey(store, apiKey) : undefined;
  if (!found || found.key.revokedAtMs !== null) throw new UnauthenticatedError();
  if (found.key.lastUsedAtMs === null || now - found.key.lastUsedAtMs >= LAST_USED_RESOLUTION_MS) {
    try {
      await store.apiKeys.recordUse(found.key.id, now);
    } catch {
      // A full disk or a read-only store: the next write that matters reports it.
    }
  }
  return found.user;
}

/** Whether the user may see the brand: whose MCP sessions hear of its posts being published. */
export async function canSeeBrand(store: Store, user: UserRecord, brandId: number): Promise<boolean> {
  return (await store.findBrandOfUser(user.id, brandId)) !== undefined;
}

const KEYS_CREATE = 'social-publisher-mcp keys create --user';

/** `"Demo User", "Ada" and 3 more` */
function userNames(users: readonly UserRecord[]): string {
  const names = users.slice(0, 5).map((user) => `"${user.name}"`);
  const more = users.length > 5 ? ` and ${users.length - 5} more` : '';
  return names.length > 1
    ? `${names.slice(0, -1).join(', ')}${more ? ',' : ' and'} ${names.at(-1)}${more}`
    : names[0]!;
}

/**
 * The user of a local (stdio) session: the key's owner when a key is given, else the store's only user.
 * Throws an Error whose message tells the operator exactly what to set, and how to get a key.
 */
export async function resolveLocalUser(
  store: Store,
  apiKey: string | undefined,
  clock: Clock = systemClock,
): Promise<UserRecord> {
  if (apiKey) {
    try {
      return await authenticate(store, apiKey, clock);
    } catch (error) {
      const found = await findKey(store, apiKey);
      if (found) {
        throw new Error(
          `SOCIAL_PUBLISHER_API_KEY is a key of "${found.user.name}" that was revoked on ${formatTimestamp(found.key.revokedAtMs!)}: set it to an active key of the user who should act. To make one: ${KEYS_CREATE} "${found.user.name}" (it prints the new key once).`,
          { cause: error },
        );
      }
      throw new Error(
        `SOCIAL_PUBLISHER_API_KEY matches no user of this store (its users: ${userNames(await store.listUsers())}): set it to a key of the user who should act, or unset it when the store has one user. "social-publisher-mcp keys list" shows each user's keys by prefix; ${KEYS_CREATE} NAME makes a new one (printed once). Check that SOCIAL_PUBLISHER_DATA_DIR names the store the key belongs to.`,
        { cause: error },
      );
    }
  }
  const only = await store.onlyUser();
  if (only) return only;
  const users = await store.listUsers();
  if (users.length === 0) {
    throw new Error(
      'The store has no user: import a workspace file ("social-publisher-mcp import FILE") or start with SOCIAL_PUBLISHER_DEMO unset to get the demo workspace.',
    );
  }
  throw new Error(
    `The store has ${users.length} users (${userNames(users)}), so SOCIAL_PUBLISHER_API_KEY must say which one acts: set it, in this server's environment (the "env" of its entry in your MCP client's configuration), to an API key of the user who should act. To make a key: ${KEYS_CREATE} NAME, with the same SOCIAL_PUBLISHER_DATA_DIR (it prints the new key once).`,
  );
}

/** A new random key; the caller shows it once and keeps only `record`. */
function newKey(origin: ApiKeyOrigin): {
  apiKey: string;
  keyHash: string;
  prefix: string;
  origin: ApiKeyOrigin;
} {
  const apiKey = `spk_${randomBytes(24).toString('base64url')}`;
  return { apiKey, keyHash: hashApiKey(apiKey), prefix: apiKey.slice(0, KEY_PREFIX_LENGTH), origin };
}

/** `keys create`: a new key for the user, beside any it has. Returns the key, to be shown once. */
export async function createApiKey(
  store: Store,
  clock: Clock,
  user: UserRecord,
): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const { apiKey, ...key } = newKey('cli');
  return { apiKey, record: await store.apiKeys.add(user.id, key, clock.now()) };
}

/**
 * Over HTTP no well-known key is accepted: each user that never had a key (the demo user of a fresh
 * store) gets a new random one. Returns the new keys, to be shown once; only their hashes are kept.
 * Several `serve` may start at once: a key is only added where the user has none, and only a key that
 * was added is returned, so no process shows a key that another one's replaced. A user whose keys were
 * all revoked gets none: revoking must stick across restarts (`keys create` makes a new one).
 */
export async function issueMissingApiKeys(
  store: Store,
  clock: Clock = systemClock,
): Promise<Array<{ user: UserRecord; apiKey: string }>> {
  return store.transaction(async (tx) => {
    const issued: Array<{ user: UserRecord; apiKey: string }> = [];
    for (const user of await tx.usersWithoutKey()) {
      const { apiKey, ...key } = newKey('serve');
      if (await tx.apiKeys.addFirst(user.id, key, clock.now())) issued.push({ user, apiKey });
    }
    return issued;
  });
}
