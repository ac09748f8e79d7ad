/**
 * MCP prompts through the real SDK client: draft_post and plan_week list their arguments, and their
 * messages carry the workspace's facts (channels and their platforms' rules, the brand's timezone and
 * local time, free queue slots) read through the service; bad arguments are clear JSON-RPC errors.
 */
import { ErrorCode, type GetPromptResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness } from './harness.js';

const EVERYWHERE = '1'; // 12 channels, Pinterest INACTIVE
const CONVERSATION = '3'; // X/Twitter, Threads, Mastodon, Bluesky, LinkedIn, Telegram: all take polls
const NEWSLETTER = '4'; // no channels
const KITE_ALL = '5'; // Kite & Key Studio (Asia/Tokyo): Instagram, X/Twitter, Bluesky, LinkedIn

let h: McpHarness;

beforeEach(async () => {
  h = await openMcpHarness();
});

afterEach(async () => {
  await h.close();
});

function textOf(result: GetPromptResult): string {
  expect(result.messages).toHaveLength(1);
  const [message] = result.messages;
  expect(message!.role).toBe('user');
  expect(message!.content.type).toBe('text');
  return (message!.content as { text: string }).text;
}

async function prompt(name: string, args: Record<string, string>): Promise<string> {
  return textOf(await h.client.getPrompt({ name, arguments: args }));
}

async function promptError(name: string, args: Record<string, string>): Promise<McpError> {
  const error = await h.client.getPrompt({ name, arguments: args }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('prompts/list', () => {
  it('shows draft_post and plan_week with their arguments, the optional ones not required', async () => {
    const { prompts } = await h.client.listPrompts();
    const shape = prompts.map((p) => ({
      name: p.name,
      title: p.title,
      arguments: p.arguments?.map((a) => [a.name, a.required]),
    }));
    expect(shape).toEqual([
      {
        name: 'draft_post',
        title: 'Draft a post',
        arguments: [
          ['brandId', true],
          ['collectionId', true],
          ['topic', true],
          ['tone', false],
        ],
      },
      {
        name: 'plan_week',
        title: 'Plan a week of queued posts',
        arguments: [
          ['brandId', true],
          ['theme', true],
          ['postsPerDay', false],
        ],
      },
    ]);
    for (const p of prompts) {
      expect(p.description).toBeTruthy();
      for (const argument of p.arguments ?? []) expect(argument.description).toBeTruthy();
    }
    expect(h.client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
  });
});

describe('draft_post', () => {
  it("names every channel of the collection with its platform's rules, the INACTIVE one and the brand's time", async () => {
    const text = await prompt('draft_post', {
      brandId: '1',
      collectionId: EVERYWHERE,
      topic: 'the winter blend',
      tone: 'warm and playful',
    });
    const { data: collections } = await h.rt.service.listCollections({ brandId: 1 });
    const channels = collections.find((c) => c.id === 1)!.channels;
    expect(channels).toHaveLength(12);
    for (const channel of channels)
      expect(text).toContain(`- ${channel.name} (${channel.type}): ${channel.status}`);

    expect(text).toContain('about: the winter blend');
    expect(text).toContain('Tone: warm and playful.');
    expect(text).toContain('"Northwind Coffee" (brandId 1), timezone America/New_York');
    expect(text).toContain('local time now 2026-11-21 07:00:00 (2026-11-21T12:00:00.000000Z UTC)');
    expect(text).toContain('Collection: "Everywhere" (collectionId 1)');
    expect(text).toContain(
      '- Northwind Coffee on Pinterest (Pinterest): INACTIVE: its delivery will fail until the channel is reconnected.',
    );
    expect(text).toContain('- INACTIVE: Northwind Coffee on Pinterest will fail');
    expect(text).toContain('caption: 1 to 3000 characters, required unless there is a poll');
    expect(text).toContain('polls go only to Threads, LinkedIn, X/Twitter, Mastodon, Bluesky, Telegram.');
    expect(text).toContain(
      'Facebook, Instagram, Google Business, YouTube, TikTok get the caption without the poll',
    );
    // Pinterest has titles too, but an INACTIVE channel gets nothing.
    expect(text).toContain('title (up to 255 characters): used only by YouTube, TikTok;');
    expect(text).toContain('postAsStory: true publishes a Story on Facebook, Instagram;');
    expect(text).toContain("the tightest among these channels is X/Twitter's 280 characters");
    expect(text).toContain(
      '- publishMode QUEUE takes the next free queue time: 2026-11-21 09:00:00 (2026-11-21T14:00:00.000000Z UTC).',
    );
    expect(text).toContain('Call create_post with brandId 1, collectionId 1');
    expect(text).toContain('dryRun: true');
  });

  it('follows the collection: all-poll channels, no titles, no Stories, nothing INACTIVE', async () => {
    const text = await prompt('draft_post', { brandId: '1', collectionId: CONVERSATION, topic: 'a poll' });
    expect(text).toContain('polls go only to X/Twitter, Threads, Mastodon, Bluesky, LinkedIn, Telegram.');
    expect(text).not.toContain('get the caption without the poll');
    expect(text).toContain('- title: none of these platforms uses one: leave it out.');
    expect(text).not.toContain('postAsStory');
    expect(text).not.toContain('INACTIVE');
    expect(text).toContain("Tone: the brand's usual voice.");
  });

  it("uses the other brand's timezone and says a collection without channels takes only drafts", async () => {
    const kite = await prompt('draft_post', { brandId: '2', collectionId: KITE_ALL, topic: 'studio news' });
    expect(kite).toContain('"Kite & Key Studio" (brandId 2), timezone Asia/Tokyo');
    expect(kite).toContain('local time now 2026-11-21 21:00:00');
    expect(kite).toContain('- Kite & Key Studio on Instagram (Instagram): ACTIVE');

    const empty = await prompt('draft_post', { brandId: '1', collectionId: NEWSLETTER, topic: 'x' });
    expect(empty).toContain('This collection has no channels: create_post accepts only publishMode DRAFT');
    expect(empty).toContain('publishMode must be DRAFT for this collection');
    expect(empty).not.toContain('QUEUE takes');
  });

  it('refuses an unknown brand, an id that is not digits and a collection of another brand', async () => {
    const unknown = await promptError('draft_post', { brandId: '9', collectionId: '1', topic: 't' });
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toBe(
      'MCP error -32602: Brand 9 not found: call list_brands for the brands you can use.',
    );

    const letters = await promptError('draft_post', { brandId: 'one', collectionId: '1', topic: 't' });
    expect(letters.code).toBe(ErrorCode.InvalidParams);
    expect(letters.message).toContain(
      'brandId must be an id in digits, such as "1", not "one": call list_brands.',
    );

    const otherBrands = await promptError('draft_post', { brandId: '1', collectionId: KITE_ALL, topic: 't' });
    expect(otherBrands.code).toBe(ErrorCode.InvalidParams);
    expect(otherBrands.message).toContain(
      'Collection 5 not found in brand 1 (Northwind Coffee): call list_collections with brandId 1.',
    );

    const missing = await promptError('draft_post', { brandId: '1' });
    expect(missing.code).toBe(ErrorCode.InvalidParams);
    expect(missing.message).toContain('topic');
  });
});

describe('plan_week', () => {
  it("gives the brand's timezone, local time, queue times and the next free slots from the queue", async () => {
    const taken = await h.rt.service.createPost({
      brandId: 1,
      collectionId: 3,
      publishMode: 'QUEUE',
      caption: 'Already queued',
    });
    expect(taken.id).toBeGreaterThan(0);
    const text = await prompt('plan_week', { brandId: '1', theme: 'holiday gifts' });
    const queue = await h.rt.service.getQueue({ brandId: 1, count: 21 });
    expect(queue.nextSlots).toHaveLength(21);
    expect(queue.nextSlots[0]!.scheduledAt).toBe('2026-11-21 12:00:00'); // 09:00 is taken

    expect(text).toContain('on the theme: holiday gifts');
    expect(text).toContain('timezone America/New_York; local time now 2026-11-21 07:00:00');
    expect(text).toContain('Daily queue times (local): 09:00, 12:00, 17:00.');
    expect(text).toContain('Already queued: 1 post');
    const slotLines = text.split('\n').filter((line) => /^- \d{4}-\d{2}-\d{2} /.test(line));
    expect(slotLines).toEqual(queue.nextSlots.map((slot) => `- ${slot.scheduledAt} (${slot.at} UTC)`));
    expect(text).toContain('- collectionId 1: Everywhere: Facebook');
    expect(text).toContain('Pinterest (INACTIVE)');
    expect(text).toContain('- collectionId 4: Newsletter: no channels (DRAFT only');
    expect(text).toContain('Draft 21 posts (3 a day for 7 days)');
    expect(text).toContain('publishMode "QUEUE"');
    expect(text).toContain('Call get_queue with brandId 1');
  });

  it('takes postsPerDay, says when the queue times are too few, and refuses a bad count', async () => {
    const two = await prompt('plan_week', { brandId: '2', theme: 'prints', postsPerDay: '2' });
    expect(two).toContain('timezone Asia/Tokyo');
    expect(two).toContain('Draft 14 posts (2 a day for 7 days)');
    expect(two.split('\n').filter((line) => /^- \d{4}-\d{2}-\d{2} /.test(line))).toHaveLength(14);
    expect(two).not.toContain('fewer than');

    const five = await prompt('plan_week', { brandId: '2', theme: 'prints', postsPerDay: '5' });
    expect(five).toContain('The brand has 3 queue times a day, fewer than 5');

    const bad = await promptError('plan_week', { brandId: '2', theme: 'prints', postsPerDay: 'lots' });
    expect(bad.code).toBe(ErrorCode.InvalidParams);
    expect(bad.message).toContain('postsPerDay must be a whole number from 1 to 10.');

    const unknown = await promptError('plan_week', { brandId: '42', theme: 'x' });
    expect(unknown.message).toContain('Brand 42 not found: call list_brands');
  });
});
