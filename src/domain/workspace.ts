/** The workspace file of `import` (product.md): brands with their channels and collections, and users. */
import { z } from 'zod';
import type { FieldErrors } from './errors.js';
import { QUEUE_TIME_PATTERN } from './queue.js';
import { CHANNEL_STATUSES, CHANNEL_TYPES, type ChannelType, httpUrl, Timezone, text } from './schemas.js';

const QueueTime = z.string().regex(QUEUE_TIME_PATTERN).describe('Local time HH:MM, 24-hour');

/** The connectors a workspace file's connection may name (the connector registry's), and their words. */
export interface WorkspaceConnectors<K extends string> {
  kinds: readonly [K, ...K[]];
  /** The channel type each connects. */
  channelTypes: Readonly<Record<K, ChannelType>>;
  /** `Mastodon @name@instance, Bluesky handle, …`. */
  accounts: string;
  /** `Mastodon instance, Bluesky PDS, …`. */
  addresses: string;
}

/**
 * The workspace file, for these connectors. A channel may be connected to an account whose secret the
 * server reads from an environment variable (a container's secret, say): the file holds the variable's
 * name, never the secret. Not checked against the platform at import (no network); a missing variable
 * fails the channel's deliveries with a reason.
 */
export function workspaceFileSchema<const K extends string>(connectors: WorkspaceConnectors<K>) {
  const Connection = z.strictObject({
    connector: z.enum(connectors.kinds),
    account: text({ max: 255 }).describe(connectors.accounts),
    /** The platform's id of the account (Telegram: the chat id); default: `account`. */
    accountId: text({ max: 255 }).optional(),
    instance: httpUrl(1000).describe(connectors.addresses),
    secretEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
  });
  return z.strictObject({
    brands: z
      .array(
        z.strictObject({
          title: text({ max: 255 }),
          description: text({ max: 2000 }).optional(),
          timezone: Timezone,
          queueTimes: z.array(QueueTime).min(1).max(96).optional(),
          channels: z
            .array(
              z.strictObject({
                name: text({ max: 255 }),
                type: z.enum(CHANNEL_TYPES),
                status: z.enum(CHANNEL_STATUSES).optional(),
                connection: Connection.optional(),
              }),
            )
            .optional(),
          collections: z
            .array(
              z.strictObject({
                title: text({ max: 255 }),
                description: text({ max: 2000 }).optional(),
                channels: z.array(text({ max: 255 })).optional(),
              }),
            )
            .optional(),
        }),
      )
      .optional(),
    users: z
      .array(
        z.strictObject({
          name: text({ max: 255 }),
          timezone: Timezone,
          apiKey: text({ min: 16, max: 512 }),
          brands: z.array(text({ max: 255 })).optional(),
        }),
      )
      .optional(),
  });
}

export type WorkspaceFileOf<K extends string> = z.infer<ReturnType<typeof workspaceFileSchema<K>>>;

/** A workspace as imported; the demo user alone may have no API key (it only acts locally). */
export type WorkspaceOf<K extends string> = Omit<WorkspaceFileOf<K>, 'users'> & {
  users?: Array<Omit<NonNullable<WorkspaceFileOf<K>['users']>[number], 'apiKey'> & { apiKey: string | null }>;
};

function duplicates(values: readonly string[]): number[] {
  const seen = new Set<string>();
  const repeated: number[] = [];
  values.forEach((value, index) => {
    if (seen.has(value)) repeated.push(index);
    seen.add(value);
  });
  return repeated;
}

/**
 * Rules across entries: natural keys unique, collections naming channels of their brand, users
 * naming known brands (`knownBrandTitles` holds those already in the store).
 */
export function checkWorkspaceReferences<K extends string>(
  workspace: WorkspaceOf<K>,
  knownBrandTitles: ReadonlySet<string>,
  channelTypes: Readonly<Record<K, ChannelType>>,
): FieldErrors {
  const errors: FieldErrors = {};
  const add = (key: string, text: string) => {
    errors[key] = [...(errors[key] ?? []), text];
  };
  const brands = workspace.brands ?? [];
  for (const index of duplicates(brands.map((b) => b.title))) {
    add(`brands.${index}.title`, `The brands.${index}.title field has a duplicate value.`);
  }
  brands.forEach((brand, b) => {
    const channels = brand.channels ?? [];
    for (const index of duplicates(channels.map((c) => c.name))) {
      add(
        `brands.${b}.channels.${index}.name`,
        `The brands.${b}.channels.${index}.name field has a duplicate value.`,
      );
    }
    channels.forEach((channel, c) => {
      const connector = channel.connection?.connector;
      if (connector && channelTypes[connector] !== channel.type) {
        add(
          `brands.${b}.channels.${c}.connection.connector`,
          `The brands.${b}.channels.${c}.connection.connector ${connector} connects ${channelTypes[connector]} channels, not ${channel.type}.`,
        );
      }
    });
    const collections = brand.collections ?? [];
    for (const index of duplicates(collections.map((c) => c.title))) {
      add(
        `brands.${b}.collections.${index}.title`,
        `The brands.${b}.collections.${index}.title field has a duplicate value.`,
      );
    }
    const channelNames = new Set(channels.map((c) => c.name));
    collections.forEach((collection, c) => {
      (collection.channels ?? []).forEach((name, n) => {
        if (!channelNames.has(name)) {
          add(
            `brands.${b}.collections.${c}.channels.${n}`,
            `The brands.${b}.collections.${c}.channels.${n} names no channel of brand "${brand.title}": ${name}.`,
          );
        }
      });
    });
  });
  const titles = new Set([...knownBrandTitles, ...brands.map((b) => b.title)]);
  const users = workspace.users ?? [];
  for (const index of duplicates(users.flatMap((u) => (u.apiKey ? [u.apiKey] : [])))) {
    add(`users.${index}.apiKey`, `The users.${index}.api key field has a duplicate value.`);
  }
  users.forEach((user, u) => {
    (user.brands ?? []).forEach((title, n) => {
      if (!titles.has(title))
        add(`users.${u}.brands.${n}`, `The users.${u}.brands.${n} names no brand: ${title}.`);
    });
  });
  return errors;
}
