/**
 * The publishing rules of product.md, worded for an assistant writing a post for a given set of channels:
 * what each channel's platform takes (polls, Stories, titles, overrides), which channels will fail, and
 * the payload's limits. The platform sets come from domain/delivery.ts, so the words follow the rules.
 */
import { OVERRIDE_KEYS, POLL_PLATFORMS, STORY_PLATFORMS, TITLE_PLATFORMS } from '../domain/delivery.js';
import type { Channel, ChannelType } from '../domain/schemas.js';

/**
 * The platforms' own usual caption limits. This server does not check them (it takes 1 to 3000
 * characters for every channel), but a platform may refuse or cut a longer caption.
 */
const PLATFORM_CAPTION_LIMITS: Partial<Record<ChannelType, number>> = {
  'X/Twitter': 280,
  Bluesky: 300,
  Threads: 500,
  Mastodon: 500,
  Pinterest: 800,
  'Google Business': 1500,
  Instagram: 2200,
};

function platformsOf(channels: readonly Channel[], set?: ReadonlySet<ChannelType>): ChannelType[] {
  return [...new Set(channels.map((channel) => channel.type))].filter((type) => !set || set.has(type));
}

const list = (items: readonly string[]) => items.join(', ');

/** One line per channel: its platform, status and what it takes. */
export function channelLines(channels: readonly Channel[]): string[] {
  if (channels.length === 0) return ['- (none)'];
  return channels.map((channel) => {
    if (channel.status === 'INACTIVE') {
      return `- ${channel.name} (${channel.type}): INACTIVE: its delivery will fail until the channel is reconnected.`;
    }
    const takes: string[] = [];
    if (POLL_PLATFORMS.has(channel.type)) takes.push('polls');
    if (STORY_PLATFORMS.has(channel.type)) takes.push('Stories (postAsStory)');
    if (TITLE_PLATFORMS.has(channel.type)) takes.push('a title');
    const overrides = OVERRIDE_KEYS[channel.type];
    if (overrides) takes.push(`overrides in platforms.${overrides}`);
    const limit = PLATFORM_CAPTION_LIMITS[channel.type];
    const said = [`- ${channel.name} (${channel.type}): ACTIVE`];
    if (takes.length) said.push(`takes ${list(takes)}`);
    if (limit) said.push(`the platform's caption limit is ${limit} characters`);
    return `${said.join('; ')}.`;
  });
}

/** The rules of the post's fields for these channels. */
export function postRules(channels: readonly Channel[]): string[] {
  if (channels.length === 0) {
    return [
      '- This collection has no channels: create_post accepts only publishMode DRAFT here. To publish, pick a collection with channels (list_collections).',
    ];
  }
  const active = channels.filter((channel) => channel.status === 'ACTIVE');
  const inactive = channels.filter((channel) => channel.status === 'INACTIVE');
  const rules = [
    '- caption: 1 to 3000 characters, required unless there is a poll. The same caption goes to every channel.',
  ];
  const limits = platformsOf(active)
    .filter((type) => PLATFORM_CAPTION_LIMITS[type] !== undefined)
    .sort((a, b) => PLATFORM_CAPTION_LIMITS[a]! - PLATFORM_CAPTION_LIMITS[b]!);
  if (limits.length > 0) {
    const tightest = limits[0]!;
    rules.push(
      `- The platforms' own caption limits are not checked here: the tightest among these channels is ${tightest}'s ${PLATFORM_CAPTION_LIMITS[tightest]} characters. Keep the caption within it, or the platform may refuse or cut it.`,
    );
  }
  const polls = platformsOf(active, POLL_PLATFORMS);
  const noPolls = platformsOf(active).filter((type) => !POLL_PLATFORMS.has(type));
  rules.push(
    polls.length
      ? `- poll (question up to 280 characters, 2 to 4 options of up to 30, period 1d, 3d or 7d; correctOptionIndex makes it a quiz): polls go only to ${list(polls)}.${noPolls.length ? ` ${list(noPolls)} get the caption without the poll, or nothing (skipped) when there is no caption.` : ''}`
      : `- poll: none of these platforms takes polls (only ${list([...POLL_PLATFORMS])} do): leave it out.`,
  );
  const titles = platformsOf(active, TITLE_PLATFORMS);
  rules.push(
    titles.length
      ? `- title (up to 255 characters): used only by ${list(titles)}; the other platforms ignore it.`
      : '- title: none of these platforms uses one: leave it out.',
  );
  const stories = platformsOf(active, STORY_PLATFORMS);
  if (stories.length) {
    rules.push(`- postAsStory: true publishes a Story on ${list(stories)}; the others get a regular post.`);
  }
  rules.push(
    '- media: upload a file with upload_media first (or pass a public URL); alt (up to 255 characters) describes it. link (up to 1000) attaches a URL.',
    '- comment: an auto-comment (up to 1000 characters) posted delay seconds after each channel gets the post.',
  );
  if (inactive.length) {
    rules.push(
      `- INACTIVE: ${list(inactive.map((channel) => channel.name))} will fail (the channel must be reconnected). Tell the user, or pick another collection.`,
    );
  }
  return rules;
}
