/** Who acts: API keys are stored as SHA-256 hashes and compared in constant time; a key is never logged. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UnauthenticatedError } from '../domain/errors.js';
import type { Store, UserRecord } from '../ports.js';

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** The user an API key belongs to, or an UnauthenticatedError. */
export function authenticate(store: Store, apiKey: string | undefined): UserRecord {
  if (!apiKey) throw new UnauthenticatedError();
  const hash = hashApiKey(apiKey);
  const found = store.findUserByKeyHash(hash);
  // The lookup is by hash (an attacker cannot steer it byte by byte); the stored hash is then
  // compared in constant time all the same.
  if (!found || !timingSafeEqual(Buffer.from(found.apiKeyHash, 'hex'), Buffer.from(hash, 'hex'))) {
    throw new UnauthenticatedError();
  }
  return found.user;
}

/** Whether the user may see the brand: whose MCP sessions hear of its posts being published. */
export function canSeeBrand(store: Store, user: UserRecord, brandId: number): boolean {
  return store.findBrandOfUser(user.id, brandId) !== undefined;
}

/**
 * The user of a local (stdio) session: the key's owner when a key is given, else the store's only user.
 * Throws an Error whose message tells the operator what to set.
 */
export function resolveLocalUser(store: Store, apiKey: string | undefined): UserRecord {
  if (apiKey) {
    try {
      return authenticate(store, apiKey);
    } catch (error) {
      throw new Error(
        'SOCIAL_PUBLISHER_API_KEY matches no user of this store: check the key or import it with a workspace file.',
        { cause: error },
      );
    }
  }
  const only = store.onlyUser();
  if (only) return only;
  const users = store.countUsers();
  if (users === 0) {
    throw new Error(
      'The store has no user: import a workspace file ("social-publisher-mcp import FILE") or start with SOCIAL_PUBLISHER_DEMO unset to get the demo workspace.',
    );
  }
  throw new Error(
    `The store has ${users} users: set SOCIAL_PUBLISHER_API_KEY to the key of the one who acts.`,
  );
}

/**
 * Over HTTP no well-known key is accepted: each user without a key (the demo user of a fresh store) gets
 * a new random one. Returns the new keys, to be shown once; only their hashes are kept. Several `serve`
 * may start at once: a key is only set where none is, and only a key that was set is returned, so no
 * process shows a key that another one's replaced.
 */
export function issueMissingApiKeys(store: Store): Array<{ user: UserRecord; apiKey: string }> {
  return store.transaction(() =>
    store.usersWithoutKey().flatMap((user) => {
      const apiKey = `spk_${randomBytes(24).toString('base64url')}`;
      return store.setApiKeyHash(user.id, hashApiKey(apiKey)) ? [{ user, apiKey }] : [];
    }),
  );
}
