/**
 * completion/complete through the real SDK client: brandId completes from the acting user's brands (id
 * prefix or part of the title), collectionId from the collections of the brandId already given, for the
 * prompts' arguments and the resource templates' variable alike.
 */
import type { CompleteRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import { type McpHarness, openMcpHarness } from './harness.js';

const ADA = 'user-a-key-0123456789';
const TITLES = [
  'Alpine Bakery', // 3
  'Birch Cycles',
  'Cobalt Books',
  'Dune Surf',
  'Ember Candles',
  'Fjord Knitwear',
  'Gull Ferries',
  'Heron Tea',
  'Iris Florist', // 11
  'Juniper Gin', // 12
];

/** Ada sees the demo brands (1, 2) and ten more (3 to 12); Bo has Harbor Bakery (13). */
const WORKSPACE: Workspace = {
  brands: [
    ...TITLES.map((title) => ({
      title,
      timezone: 'UTC',
      channels: [{ name: `${title} on X`, type: 'X/Twitter' as const }],
      collections: [{ title: 'All', channels: [`${title} on X`] }],
    })),
    { title: 'Harbor Bakery', timezone: 'Europe/Paris', channels: [], collections: [] },
  ],
  users: [
    {
      name: 'Ada',
      timezone: 'UTC',
      apiKey: ADA,
      brands: ['Northwind Coffee', 'Kite & Key Studio', ...TITLES],
    },
    { name: 'Bo', timezone: 'UTC', apiKey: 'user-b-key-0123456789', brands: ['Harbor Bakery'] },
  ],
};

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness({ workspace: WORKSPACE, apiKey: ADA });
});

afterEach(async () => {
  await h.close();
});

async function complete(
  ref: CompleteRequest['params']['ref'],
  name: string,
  value: string,
  context?: Record<string, string>,
): Promise<string[]> {
  const { completion } = await h.client.complete({
    ref,
    argument: { name, value },
    ...(context ? { context: { arguments: context } } : {}),
  });
  return completion.values;
}

const DRAFT_POST = { type: 'ref/prompt', name: 'draft_post' } as const;
const PLAN_WEEK = { type: 'ref/prompt', name: 'plan_week' } as const;
const QUEUE = { type: 'ref/resource', uri: 'social-publisher://brands/{brandId}/queue' } as const;
const CALENDAR = { type: 'ref/resource', uri: 'social-publisher://brands/{brandId}/calendar' } as const;

describe('brandId completion', () => {
  it("declares completions and offers all of the user's brands for an empty value", async () => {
    expect(h.client.getServerCapabilities()?.completions).toEqual({});
    const all = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12'];
    expect(await complete(DRAFT_POST, 'brandId', '')).toEqual(all);
    expect(await complete(QUEUE, 'brandId', '')).toEqual(all);
  });

  it('matches the start of an id, then any part of a title; never another user’s brand', async () => {
    for (const ref of [DRAFT_POST, PLAN_WEEK, QUEUE, CALENDAR]) {
      expect(await complete(ref, 'brandId', '1')).toEqual(['1', '10', '11', '12']);
      expect(await complete(ref, 'brandId', '12')).toEqual(['12']);
      expect(await complete(ref, 'brandId', 'kite')).toEqual(['2']);
      // "bakery": Alpine Bakery is Ada's; Harbor Bakery (13) is Bo's.
      expect(await complete(ref, 'brandId', 'Bakery')).toEqual(['3']);
      expect(await complete(ref, 'brandId', '13')).toEqual([]);
    }
  });
});

describe('collectionId completion', () => {
  it('offers the collections of the brandId given in the context', async () => {
    expect(await complete(DRAFT_POST, 'collectionId', '', { brandId: '1' })).toEqual(['1', '2', '3', '4']);
    expect(await complete(DRAFT_POST, 'collectionId', 'vis', { brandId: '1' })).toEqual(['2']);
    expect(await complete(DRAFT_POST, 'collectionId', '3', { brandId: '1' })).toEqual(['3']);
    expect(await complete(DRAFT_POST, 'collectionId', '', { brandId: '2' })).toEqual(['5']);
    const alpine = await (await h.rt.serviceFor(ADA)).listCollections({ brandId: 3 });
    expect(await complete(DRAFT_POST, 'collectionId', '', { brandId: '3' })).toEqual(
      alpine.data.map((collection) => String(collection.id)),
    );
  });

  it("offers nothing without a brandId, for an id that is not digits or another user's brand", async () => {
    expect(await complete(DRAFT_POST, 'collectionId', '')).toEqual([]);
    expect(await complete(DRAFT_POST, 'collectionId', '', { brandId: 'north' })).toEqual([]);
    expect(await complete(DRAFT_POST, 'collectionId', '', { brandId: '13' })).toEqual([]);
    expect(h.logged).toEqual([]);
  });
});
