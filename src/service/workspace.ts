/**
 * Workspace import (idempotent upsert by natural keys, in one transaction) and the demo workspace
 * that an empty store gets.
 */
import { PLATFORM_CAPABILITIES } from '../domain/capabilities.js';
import { ValidationError } from '../domain/errors.js';
import { DEFAULT_QUEUE_TIMES, normalizeQueueTimes } from '../domain/queue.js';
import { CHANNEL_TYPES, type ChannelType } from '../domain/schemas.js';
import { validate } from '../domain/validation.js';
import { checkWorkspaceReferences } from '../domain/workspace.js';
import type { Clock, Store } from '../ports.js';
import { CONNECTED_PLATFORMS, connectorModule } from '../publish/connectors/registry.js';
import { type Workspace, WorkspaceFile } from '../publish/connectors/schemas.js';
import { hashApiKey } from './acting-user.js';

export interface ImportedIds {
  brands: Array<{
    id: number;
    title: string;
    channels: Array<{ id: number; name: string }>;
    collections: Array<{ id: number; title: string }>;
  }>;
  users: Array<{ id: string; name: string }>;
}

/** Validates a parsed workspace file: every problem, keyed by its JSON path. */
export function parseWorkspaceFile(input: unknown): Workspace {
  const result = validate(WorkspaceFile, input);
  if (!result.ok) throw new ValidationError(result.errors);
  return result.value;
}

export async function importWorkspace(
  store: Store,
  clock: Clock,
  workspace: Workspace,
): Promise<ImportedIds> {
  return store.transaction(async (tx) => {
    const brandTitles = new Set<string>();
    for (const title of (workspace.users ?? []).flatMap((user) => user.brands ?? [])) {
      if ((await tx.findBrandIdByTitle(title)) !== undefined) brandTitles.add(title);
    }
    const errors = checkWorkspaceReferences(workspace, brandTitles, CONNECTED_PLATFORMS);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);

    const nowMs = clock.now();
    const result: ImportedIds = { brands: [], users: [] };
    for (const brand of workspace.brands ?? []) {
      const brandId = await tx.upsertBrand(
        {
          title: brand.title,
          description: brand.description ?? null,
          timezone: brand.timezone,
          queueTimes: normalizeQueueTimes(brand.queueTimes ?? DEFAULT_QUEUE_TIMES),
        },
        nowMs,
      );
      const channelIds = new Map<string, number>();
      for (const channel of brand.channels ?? []) {
        const channelId = await tx.upsertChannel(
          brandId,
          { name: channel.name, type: channel.type, status: channel.status ?? 'ACTIVE' },
          nowMs,
        );
        channelIds.set(channel.name, channelId);
        const { connection } = channel;
        if (connection) {
          const accountId = connection.accountId ?? connection.account;
          await tx.connections.save(
            channelId,
            {
              kind: connection.connector,
              account: connection.account,
              accountId,
              endpoint: connection.instance.replace(/\/+$/, ''),
              profileUrl: null,
              settings: connectorModule(connection.connector).importedSettings?.(accountId) ?? {},
              capabilities: PLATFORM_CAPABILITIES[channel.type],
              sealedSecret: null,
              secretEnv: connection.secretEnv,
            },
            nowMs,
          );
        }
      }
      const collections: Array<{ id: number; title: string }> = [];
      for (const collection of brand.collections ?? []) {
        const id = await tx.upsertCollection(
          brandId,
          {
            title: collection.title,
            description: collection.description ?? null,
            channelIds: (collection.channels ?? []).map((name) => channelIds.get(name)!),
          },
          nowMs,
        );
        collections.push({ title: collection.title, id });
      }
      result.brands.push({
        id: brandId,
        title: brand.title,
        channels: [...channelIds].map(([name, id]) => ({ id, name })),
        collections,
      });
    }
    for (const user of workspace.users ?? []) {
      const brandIds: number[] = [];
      for (const title of user.brands ?? []) brandIds.push((await tx.findBrandIdByTitle(title))!);
      const id = await tx.upsertUser(
        {
          name: user.name,
          timezone: user.timezone,
          apiKeyHash: user.apiKey ? hashApiKey(user.apiKey) : null,
          brandIds,
        },
        nowMs,
      );
      result.users.push({ id, name: user.name });
    }
    return result;
  });
}

const VISUAL: ChannelType[] = ['Instagram', 'Facebook', 'Pinterest', 'TikTok', 'YouTube'];
const CONVERSATION: ChannelType[] = ['X/Twitter', 'Threads', 'Mastodon', 'Bluesky', 'LinkedIn', 'Telegram'];
const KITE_AND_KEY: ChannelType[] = ['Instagram', 'X/Twitter', 'Bluesky', 'LinkedIn'];

/** The demo workspace of product.md. */
export function demoWorkspace(): Workspace {
  const northwind = (type: ChannelType) => `Northwind Coffee on ${type}`;
  const kite = (type: ChannelType) => `Kite & Key Studio on ${type}`;
  return {
    brands: [
      {
        title: 'Northwind Coffee',
        description: 'Specialty coffee roaster',
        timezone: 'America/New_York',
        queueTimes: [...DEFAULT_QUEUE_TIMES],
        channels: CHANNEL_TYPES.map((type) => ({
          name: northwind(type),
          type,
          status: type === 'Pinterest' ? 'INACTIVE' : 'ACTIVE',
        })),
        collections: [
          { title: 'Everywhere', channels: CHANNEL_TYPES.map(northwind) },
          { title: 'Visual', channels: VISUAL.map(northwind) },
          { title: 'Conversation', channels: CONVERSATION.map(northwind) },
          { title: 'Newsletter', channels: [] },
        ],
      },
      {
        title: 'Kite & Key Studio',
        timezone: 'Asia/Tokyo',
        queueTimes: [...DEFAULT_QUEUE_TIMES],
        channels: KITE_AND_KEY.map((type) => ({ name: kite(type), type, status: 'ACTIVE' })),
        collections: [{ title: 'All', channels: KITE_AND_KEY.map(kite) }],
      },
    ],
    users: [
      {
        name: 'Demo User',
        timezone: 'Europe/London',
        apiKey: null,
        brands: ['Northwind Coffee', 'Kite & Key Studio'],
      },
    ],
  };
}

/**
 * Gives an empty store the demo workspace; true when it did. Safe when several processes start at
 * once: the store is found empty and filled under one write lock, so one of them creates the demo and
 * the others find it.
 */
export async function ensureDemoWorkspace(store: Store, clock: Clock): Promise<boolean> {
  return store.transaction(async (tx) => {
    if (!(await tx.isEmpty())) return false;
    await importWorkspace(tx, clock, demoWorkspace());
    return true;
  });
}
