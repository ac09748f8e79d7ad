/**
 * get_channel's text names the video lengths a channel's platform takes, beside its other limits, where
 * the platform bounds them (what pre-flight holds an uploaded video to), and says nothing of videos
 * where it does not.
 */
import { afterEach, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness, textOf } from './harness.js';

let h: McpHarness;
afterEach(async () => {
  await h.close();
});

it('says the video lengths of X, Instagram and Threads, and none for Mastodon', async () => {
  h = await openMcpHarness();
  const listed = (await h.call('list_channels', { brandId: 1 })).structuredContent as {
    data: { id: number; type: string }[];
  };
  const limitsOf = async (type: string) => {
    const channel = listed.data.find((c) => c.type === type)!;
    const text = textOf(await h.call('get_channel', { brandId: 1, channelId: channel.id }));
    return text.split('\n').find((line) => line.startsWith('Limits: '));
  };
  expect(await limitsOf('X/Twitter')).toBe(
    'Limits: 280 weighted, up to 4 media, videos of 0.5 seconds to 2 min 20 s, polls yes.',
  );
  expect(await limitsOf('Instagram')).toBe(
    'Limits: 2200 characters, up to 10 media, videos of 3 seconds to 15 min, polls no.',
  );
  expect(await limitsOf('Threads')).toBe(
    'Limits: 500 emoji-bytes, up to 20 media, videos up to 5 min, polls yes.',
  );
  expect(await limitsOf('Mastodon')).toBe('Limits: 500 graphemes, up to 4 media, polls yes.');
});
