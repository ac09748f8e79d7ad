/**
 * YouTube's pre-flight, through the service as create_post's dryRun runs it: YouTube's words (a title
 * over 100 characters, a description over 5,000 bytes, `<` and `>`, tags over 500 characters as YouTube
 * counts them) on a connected channel and on a sandbox channel (told as what YouTube would refuse), and
 * an account whose quota the engine learned is spent (a `quotaExceeded` until midnight Pacific Time):
 * its delivery waits until then, and pre-flight says so.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PreflightWarning } from '../../src/domain/preflight.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

let rt: TestRuntime;
let service: LocalPublishingService;
let brandId: number;
let collectionId: number;
let channelId: number;

beforeEach(async () => {
  rt = await openTestRuntime({ demo: false, now: Date.now() });
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [
          {
            name: 'Acme TV',
            type: 'YouTube',
            connection: {
              connector: 'youtube',
              account: 'Acme TV',
              accountId: 'UCacme',
              instance: 'https://www.googleapis.com',
              secretEnv: 'ACME_YOUTUBE',
            },
          },
          { name: 'Acme Shorts', type: 'YouTube' },
        ],
        collections: [{ title: 'Videos', channels: ['Acme TV', 'Acme Shorts'] }],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
  const { store } = rt.runtime;
  brandId = (await store.findBrandIdByTitle('Acme'))!;
  collectionId = (await store.listCollections(brandId, { limit: 1, offset: 0 }))[0]!.id;
  channelId = (await store.listChannels(brandId, { limit: 10, offset: 0 })).find(
    (c) => c.name === 'Acme TV',
  )!.id;
  service = new LocalPublishingService(rt.runtime, (await store.onlyUser())!);
});
afterEach(() => rt.close());

async function warnings(payload: Record<string, unknown>): Promise<PreflightWarning[]> {
  const created = await service.createPost({
    brandId,
    collectionId,
    publishMode: 'DRAFT',
    dryRun: true,
    media: [{ url: 'https://cdn.example/roast.mp4' }],
    ...payload,
  } as Parameters<LocalPublishingService['createPost']>[0]);
  return (created as { warnings?: PreflightWarning[] }).warnings ?? [];
}

it('tells what YouTube would refuse of the words, on each channel', async () => {
  const told = await warnings({
    title: 'T'.repeat(101),
    caption: `${'é'.repeat(2_500)} a -> b`,
    platforms: { youtube: { tags: Array.from({ length: 40 }, (_, i) => `tag number ${i}`) } },
  });
  const connected = told
    .filter((warning) => warning.channelName === 'Acme TV')
    .map((warning) => warning.message);
  expect(connected).toEqual([
    'The title is 101 characters; YouTube takes at most 100: shorten it.',
    'The description (the caption and the link) is 5007 bytes in UTF-8; YouTube takes at most 5000: shorten the caption, or give YouTube its own with platforms.youtube.caption.',
    'YouTube refuses < and > in a description: remove them from the caption, or give YouTube its own with platforms.youtube.caption.',
    expect.stringMatching(
      /^The tags are \d+ characters as YouTube counts them .* at most 500: drop some of platforms.youtube.tags\.$/,
    ),
  ]);
  const sandbox = told.filter((warning) => warning.channelName === 'Acme Shorts');
  expect(sandbox.every((warning) => warning.message.includes('YouTube would refuse it'))).toBe(true);
  expect(sandbox).toHaveLength(4);
});

it('a post YouTube takes has no warning', async () => {
  expect(
    await warnings({
      title: 'Roast',
      caption: 'é'.repeat(2_400),
      platforms: { youtube: { tags: ['coffee'] } },
    }),
  ).toEqual([]);
});

it('an account whose quota is spent: pre-flight says its delivery waits until the reset', async () => {
  const resetAtMs = Date.now() + 5 * 3_600_000;
  await rt.runtime.store.jobs.limitAccount(channelId, resetAtMs);
  const told = await warnings({ title: 'Roast', caption: 'A roast' });
  expect(told).toEqual([
    {
      channelId,
      channelName: 'Acme TV',
      outcome: 'change',
      message: `YouTube said this account has nothing left of its limit or quota until ${new Date(resetAtMs).toISOString()}: its delivery waits until then.`,
    },
  ]);
});

it('platforms.youtube.privacy takes public, unlisted or private only', async () => {
  await expect(
    warnings({ title: 'Roast', caption: 'A roast', platforms: { youtube: { privacy: 'friends' } } }),
  ).rejects.toMatchObject({
    errors: { 'platforms.youtube.privacy': ['The selected platforms.youtube.privacy is invalid.'] },
  });
  expect(
    await warnings({ title: 'Roast', caption: 'A roast', platforms: { youtube: { privacy: 'unlisted' } } }),
  ).toEqual([]);
});
