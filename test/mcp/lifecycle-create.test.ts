/**
 * create_post's safety nets over MCP: an idempotency key or the same post again returns the first post
 * instead of a second one, and a dry run validates and resolves without storing anything.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invalid, type McpHarness, openMcpHarness, textOf } from './harness.js';

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  expect(h.logged).toEqual([]);
  await h.close();
});

interface Created {
  id: number | null;
  message: string;
  duplicate?: boolean;
  dryRun?: boolean;
}

function created(result: CallToolResult): Created {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  const data = (result.structuredContent as { data: Created }).data;
  // Pre-flight warnings, when there are any, lead the text; the message ends it.
  expect(textOf(result).endsWith(data.message)).toBe(true);
  return data;
}

const post = (extra: Record<string, unknown> = {}) => ({
  brandId: 1,
  collectionId: 1,
  publishMode: 'QUEUE',
  caption: 'Fresh roast on Monday',
  ...extra,
});

async function total(): Promise<number> {
  const result = await h.call('list_posts', { brandId: 1 });
  return (result.structuredContent as { pagination: { total: number } }).pagination.total;
}

describe('idempotencyKey', () => {
  it('returns the first post for the same key, marked duplicate, and creates nothing new', async () => {
    const first = created(await h.call('create_post', post({ idempotencyKey: 'monday-roast' })));
    expect(first.duplicate).toBeUndefined();
    const again = created(await h.call('create_post', post({ idempotencyKey: 'monday-roast' })));
    expect(again).toMatchObject({ id: first.id, duplicate: true });
    expect(again.message).toContain('Duplicate');
    expect(again.message).toContain('same idempotency key');
    expect(again.message).toContain('nothing new was created or published');
    expect(await total()).toBe(1);
  });

  it('refuses the same key with different content, on idempotencyKey', async () => {
    const first = created(await h.call('create_post', post({ idempotencyKey: 'monday-roast' })));
    const result = await h.call('create_post', post({ idempotencyKey: 'monday-roast', caption: 'Other' }));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(
      invalid({
        idempotencyKey: [
          `The idempotency key was already used for post ${first.id}, with different content. Use a new key for a new post.`,
        ],
      }),
    );
    expect(await total()).toBe(1);
  });
});

describe('the same post again', () => {
  it('is answered as a duplicate of the first instead of being queued twice', async () => {
    const first = created(await h.call('create_post', post()));
    const again = created(await h.call('create_post', post()));
    expect(again).toMatchObject({ id: first.id, duplicate: true });
    expect(again.message).toContain('same content less than 10 minutes ago');
    expect(await total()).toBe(1);

    const other = created(await h.call('create_post', post({ caption: 'Fresh roast on Tuesday' })));
    expect(other.id).not.toBe(first.id);
    expect(await total()).toBe(2);
  });
});

describe('dryRun', () => {
  it('resolves the time and channels, returns id null and stores nothing', async () => {
    const dry = created(await h.call('create_post', post({ dryRun: true })));
    expect(dry).toMatchObject({ id: null, dryRun: true });
    expect(dry.message).toContain('Dry run, nothing stored');
    expect(dry.message).toContain('Saturday, November 21, 2026 at 09:00 EST (America/New_York)');
    expect(dry.message).toContain('12 channels of collection "Everywhere"');
    expect(await total()).toBe(0);

    // The queue time was read, not taken: the real post gets the same one.
    const real = created(await h.call('create_post', post()));
    expect(real.id).toEqual(expect.any(Number));
    expect(real.message).toContain('09:00 EST');
    expect(await total()).toBe(1);
  });

  it('of an IMMEDIATE post publishes nothing', async () => {
    const dry = created(await h.call('create_post', post({ publishMode: 'IMMEDIATE', dryRun: true })));
    expect(dry).toMatchObject({ id: null, dryRun: true });
    expect(await total()).toBe(0);
  });

  it('reports validation errors like a real call', async () => {
    const result = await h.call('create_post', post({ dryRun: true, caption: 'x'.repeat(3001) }));
    expect(result.structuredContent).toEqual(
      invalid({ caption: ['The caption may not be greater than 3000 characters.'] }),
    );
  });
});
