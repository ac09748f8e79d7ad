/**
 * `keys create|list|revoke`: the API keys of the local store's users. A new key is printed once, on
 * stdout, as JSON (`jq -r .key`); only its hash is stored. Keys are never printed again: `list` shows
 * each key's id and prefix. A revoked key is refused from the next request on, by every process on the
 * data directory (a running `serve` included: nothing caches a key's owner). Keys do not create users:
 * a user comes from a workspace file (or the demo), so a mistyped name cannot make a user by accident.
 */
import { type Config, ConfigError } from '../config.js';
import { formatTimestamp } from '../domain/time.js';
import { openLocalRuntime } from '../local-runtime.js';
import type { ApiKeyRecord, Store, UserRecord } from '../ports.js';
import { createApiKey, hashApiKey } from '../service/acting-user.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Runs the command; returns what goes to stdout (main.ts writes it). */
export async function runKeys(config: Config): Promise<string> {
  const request = config.keys!;
  const runtime = await openLocalRuntime(config);
  try {
    const { store, clock } = runtime;
    if (request.action === 'list') {
      const users =
        request.user === undefined ? await store.listUsers() : [await findUser(store, request.user)];
      const listed = [];
      for (const user of users) {
        listed.push({ ...userFields(user), keys: (await store.apiKeys.ofUser(user.id)).map(keyFields) });
      }
      return json(listed);
    }
    const user = await findUser(store, request.user!);
    if (request.action === 'create') {
      const { apiKey, record } = await createApiKey(store, clock, user);
      say(
        `New API key ${record.id} of "${user.name}", shown this once (only its hash is stored). Use it as SOCIAL_PUBLISHER_API_KEY, or as "Authorization: Bearer <key>" with serve.`,
      );
      return json({ ...userFields(user), key: apiKey, ...keyFields(record) });
    }
    const key = await findKeyOf(store, user, request.key!);
    const revoked = await store.apiKeys.revoke(key.id, clock.now());
    say(
      revoked
        ? `Revoked API key ${key.id}${key.prefix ? ` (${key.prefix}…)` : ''} of "${user.name}": it is refused from now on, by a running serve too.`
        : `API key ${key.id} of "${user.name}" was already revoked on ${formatTimestamp(key.revokedAtMs!)}.`,
    );
    const now = (await store.apiKeys.ofUser(user.id)).find((k) => k.id === key.id)!;
    return json({ ...userFields(user), ...keyFields(now) });
  } finally {
    await runtime.close();
  }
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function userFields(user: UserRecord) {
  return { userId: user.id, user: user.name };
}

const timestamp = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));

function keyFields(key: ApiKeyRecord) {
  return {
    id: key.id,
    prefix: key.prefix,
    origin: key.origin,
    createdAt: formatTimestamp(key.createdAtMs),
    lastUsedAt: timestamp(key.lastUsedAtMs),
    revokedAt: timestamp(key.revokedAtMs),
  };
}

/** The user named `wanted` (or with that id); an error listing the users when none or several match. */
async function findUser(store: Store, wanted: string): Promise<UserRecord> {
  const users = await store.listUsers();
  const byId = users.find((user) => user.id === wanted);
  if (byId) return byId;
  const named = users.filter((user) => user.name === wanted);
  if (named.length === 1) return named[0]!;
  const listed = users.map((user) => `"${user.name}" (${user.id})`).join(', ');
  if (named.length > 1) {
    throw new ConfigError(
      `${named.length} users are named "${wanted}": give --user the id of the one you mean: ${named.map((user) => user.id).join(', ')}.`,
    );
  }
  throw new ConfigError(
    users.length === 0
      ? `The store has no user, so no "${wanted}". Users come from a workspace file: add one ("users" in the file, see examples/workspace.json), import it with "social-publisher-mcp import FILE", then run keys again.`
      : `No user is named "${wanted}". The users: ${listed}. keys does not create users: add one to a workspace file ("users", see examples/workspace.json) and import it with "social-publisher-mcp import FILE", then run keys again.`,
  );
}

/** The user's key that `ref` names: its id, its prefix (as `keys list` shows it), or the whole key. */
async function findKeyOf(store: Store, user: UserRecord, ref: string): Promise<ApiKeyRecord> {
  const keys = await store.apiKeys.ofUser(user.id);
  const trimmed = ref.trim().replace(/…$/, '');
  const whole = await store.apiKeys.findByHash(hashApiKey(trimmed));
  let matches: ApiKeyRecord[];
  if (/^\d+$/.test(trimmed) && keys.some((key) => key.id === Number(trimmed))) {
    matches = keys.filter((key) => key.id === Number(trimmed));
  } else if (whole) {
    matches = whole.user.id === user.id ? [whole.key] : [];
  } else {
    matches = keys.filter(
      (key) => key.prefix !== null && trimmed.length >= 4 && key.prefix.startsWith(trimmed),
    );
  }
  if (matches.length === 1) return matches[0]!;
  // What may be (part of) a secret is not repeated: only an id or a prefix's length of it.
  const given = trimmed.length <= 12 ? trimmed : '(the --key given)';
  const shown = keys.map((key) => `${key.id}${key.prefix ? ` (${key.prefix}…)` : ''}`).join(', ');
  throw new ConfigError(
    matches.length > 1
      ? `--key ${given} matches ${matches.length} keys of "${user.name}": give its id (${matches.map((key) => key.id).join(', ')}).`
      : keys.length === 0
        ? `"${user.name}" has no API key.`
        : `"${user.name}" has no API key ${given}. Its keys: ${shown}. Give --key a key's id or prefix (as keys list shows them), or the whole key.`,
  );
}
