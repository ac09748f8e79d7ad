import { describe, expect, it } from 'vitest';
import { POLL_PLATFORMS } from '../../src/domain/delivery.js';
import { type DeliveryChannel, planDelivery } from '../../src/domain/platform-rules.js';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import { CHANNEL_TYPES, type ChannelType } from '../../src/domain/schemas.js';

const channel = (type: ChannelType, status: DeliveryChannel['status'] = 'ACTIVE'): DeliveryChannel => ({
  name: `Acme on ${type}`,
  type,
  status,
});
const poll = { question: 'Coffee or tea?', options: ['Coffee', 'Tea'], period: '1d' as const };

describe('planDelivery', () => {
  it('fails an INACTIVE channel with a reason that says how to fix it', () => {
    const plan = planDelivery({ publishMode: 'QUEUE', caption: 'hi' }, channel('Pinterest', 'INACTIVE'));
    expect(plan).toEqual({
      action: 'fail',
      reason:
        'The channel "Acme on Pinterest" is INACTIVE (disconnected or needs re-authorization): reconnect it, then publish again.',
    });
  });

  it('sends a poll exactly to LinkedIn, X/Twitter, Telegram, Threads, Mastodon and Bluesky', () => {
    const withPoll = CHANNEL_TYPES.filter((type) => {
      const plan = planDelivery({ publishMode: 'QUEUE', caption: 'Vote', poll }, channel(type));
      return plan.action === 'send' && plan.content.poll !== undefined;
    });
    expect(withPoll.sort()).toEqual(['Bluesky', 'LinkedIn', 'Mastodon', 'Telegram', 'Threads', 'X/Twitter']);
    expect([...POLL_PLATFORMS].sort()).toEqual(withPoll.sort());
  });

  it('sends the caption alone where polls are not supported, with a note', () => {
    const plan = planDelivery({ publishMode: 'QUEUE', caption: 'Vote', poll }, channel('Instagram'));
    expect(plan).toEqual({
      action: 'send',
      content: { platform: 'Instagram', format: 'feed', caption: 'Vote', media: [] },
      notes: ['Instagram does not support polls: only the caption is sent, without the poll.'],
    });
  });

  it('skips a caption-less poll where polls are not supported', () => {
    const plan = planDelivery({ publishMode: 'QUEUE', poll }, channel('Facebook'));
    expect(plan).toEqual({
      action: 'skip',
      reason: 'Facebook does not support polls and the post has no caption to send instead.',
    });
    const onBluesky = planDelivery({ publishMode: 'QUEUE', poll }, channel('Bluesky'));
    expect(onBluesky.action === 'send' && onBluesky.content).toEqual({
      platform: 'Bluesky',
      format: 'feed',
      media: [],
      poll,
    });
  });

  it('publishes a Story only on Instagram and Facebook', () => {
    const stories = CHANNEL_TYPES.filter((type) => {
      const plan = planDelivery({ publishMode: 'QUEUE', caption: 'x', postAsStory: true }, channel(type));
      return plan.action === 'send' && plan.content.format === 'story';
    });
    expect(stories.sort()).toEqual(['Facebook', 'Instagram']);
    const onX = planDelivery({ publishMode: 'QUEUE', caption: 'x', postAsStory: true }, channel('X/Twitter'));
    expect(onX.action === 'send' && onX.notes).toEqual([
      'X/Twitter has no Stories: it goes out as a regular post.',
    ]);
  });

  it('sends the title only to platforms with titles', () => {
    const titled = CHANNEL_TYPES.filter((type) => {
      const plan = planDelivery({ publishMode: 'QUEUE', caption: 'x', title: 'T' }, channel(type));
      return plan.action === 'send' && plan.content.title === 'T';
    });
    expect(titled.sort()).toEqual(['Pinterest', 'TikTok', 'YouTube']);
  });

  it('gives each platform its own overrides only', () => {
    const payload: PostPayload = {
      publishMode: 'QUEUE',
      caption: 'x',
      platforms: {
        instagram: { collab: 'friend', shareToFeed: true },
        facebook: { location: { id: '1', name: 'Paris' } },
        tiktok: { sendToInbox: true },
        youtube: { tags: ['a'], playlists: [{ channelId: 6, playlistIds: ['PL1'] }] },
      },
    };
    const overridesOf = (type: ChannelType) => {
      const plan = planDelivery(payload, channel(type));
      return plan.action === 'send' ? plan.content.overrides : 'not sent';
    };
    expect(overridesOf('Instagram')).toEqual({ collab: 'friend', shareToFeed: true });
    expect(overridesOf('Facebook')).toEqual({ location: { id: '1', name: 'Paris' } });
    expect(overridesOf('TikTok')).toEqual({ sendToInbox: true });
    expect(overridesOf('YouTube')).toEqual({
      tags: ['a'],
      playlists: [{ channelId: 6, playlistIds: ['PL1'] }],
    });
    for (const type of ['LinkedIn', 'X/Twitter', 'Pinterest', 'Threads'] as const)
      expect(overridesOf(type)).toBeUndefined();
  });

  it('passes link, alt and media (with known types) to every platform', () => {
    const plan = planDelivery(
      {
        publishMode: 'QUEUE',
        caption: 'x',
        link: 'https://acme.example/a',
        alt: 'A cup',
        media: [{ id: 'med_1' }, { url: 'https://cdn.example/b.mp4' }],
      },
      channel('LinkedIn'),
      new Map([['med_1', 'image/png']]),
    );
    expect(plan.action === 'send' && plan.content).toEqual({
      platform: 'LinkedIn',
      format: 'feed',
      caption: 'x',
      alt: 'A cup',
      link: 'https://acme.example/a',
      media: [{ id: 'med_1', type: 'image/png' }, { url: 'https://cdn.example/b.mp4' }],
    });
  });
});
