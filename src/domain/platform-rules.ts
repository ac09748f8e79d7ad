/**
 * The platform rules of publishing (product.md, "Publishing"): what each channel receives from a post.
 * An INACTIVE channel fails; a poll goes only to platforms with polls (elsewhere the caption alone, or
 * nothing when there is no caption); Stories only on Instagram and Facebook; the title only where posts
 * have titles; each platform's overrides only to that platform. And the text each connected platform
 * receives (platformText), which its connector sends and the pre-flight measures.
 */
import {
  type DeliveryPlan,
  OVERRIDE_KEYS,
  type PlatformContent,
  type PlatformMedia,
  POLL_PLATFORMS,
  STORY_PLATFORMS,
  TITLE_PLATFORMS,
} from './delivery.js';
import type { PostPayload } from './post-schemas.js';
import type { ChannelType } from './schemas.js';

export interface DeliveryChannel {
  name: string;
  type: ChannelType;
  status: 'ACTIVE' | 'INACTIVE';
}

/** `mediaTypes` maps the brand's media ids used by the post to their MIME types. */
export function planDelivery(
  payload: PostPayload,
  channel: DeliveryChannel,
  mediaTypes: ReadonlyMap<string, string> = new Map(),
): DeliveryPlan {
  if (channel.status === 'INACTIVE') {
    return {
      action: 'fail',
      reason: `The channel "${channel.name}" is INACTIVE (disconnected or needs re-authorization): reconnect it, then publish again.`,
    };
  }
  const platform = channel.type;
  const notes: string[] = [];
  const content: PlatformContent = { platform, format: 'feed', media: [] };
  const { caption: ownCaption, ...overrides } = payload.platforms?.[OVERRIDE_KEYS[platform]] ?? {};
  // The platform's own caption replaces the post's, for this platform only.
  const caption = typeof ownCaption === 'string' ? ownCaption : payload.caption;

  if (payload.poll) {
    if (POLL_PLATFORMS.has(platform)) {
      content.poll = { ...payload.poll };
    } else if (caption === undefined) {
      return {
        action: 'skip',
        reason: `${platform} does not support polls and the post has no caption to send instead.`,
      };
    } else {
      notes.push(`${platform} does not support polls: only the caption is sent, without the poll.`);
    }
  }
  if (caption !== undefined) content.caption = caption;
  if (payload.postAsStory) {
    if (STORY_PLATFORMS.has(platform)) content.format = 'story';
    else notes.push(`${platform} has no Stories: it goes out as a regular post.`);
  }
  if (payload.title !== undefined && TITLE_PLATFORMS.has(platform)) content.title = payload.title;
  if (payload.alt !== undefined) content.alt = payload.alt;
  if (payload.link !== undefined) content.link = payload.link;
  content.media = (payload.media ?? []).map((element): PlatformMedia => {
    if (element.id === undefined) return { url: element.url! };
    const type = mediaTypes.get(element.id);
    return type === undefined ? { id: element.id } : { id: element.id, type };
  });
  if (Object.keys(overrides).length > 0) content.overrides = overrides;
  return { action: 'send', content, notes };
}

// ------------------------------------------------------------------ the text each platform receives

/**
 * The texts below are what each connector sends and what the pre-flight measures: composed once, here,
 * so that a count cannot differ from the text sent. Each adds the link after the caption unless the
 * caption has it already.
 */
function captionAndLink(content: Pick<PlatformContent, 'caption' | 'link'>, separator: string): string {
  const caption = content.caption ?? '';
  if (!content.link || caption.includes(content.link)) return caption;
  return caption ? `${caption}${separator}${content.link}` : content.link;
}

/**
 * A Mastodon status: the caption, the link, and the poll's question unless the caption asks it
 * (Mastodon's polls have no question of their own), separated by blank lines.
 */
export function mastodonStatusText(content: PlatformContent): string {
  const parts = content.caption ? [content.caption] : [];
  const has = (text: string) => parts.some((part) => part.includes(text));
  if (content.link && !has(content.link)) parts.push(content.link);
  if (content.poll && !has(content.poll.question)) parts.push(content.poll.question);
  return parts.join('\n\n');
}

/**
 * An X post: composed as a Mastodon status (caption, link, and the poll's question unless the caption
 * asks it, separated by blank lines): X's polls have no question of their own either.
 */
export function xPostText(content: PlatformContent): string {
  return mastodonStatusText(content);
}

/**
 * A Bluesky post: the caption, the link on the next line; then, for a poll (Bluesky has none), after a
 * blank line, the question (unless the caption asks it) and one line per option numbered from 1:
 *
 *     {caption}
 *     {link}
 *
 *     {question}
 *     1. {first option}
 *     2. {second option}
 *
 * A quiz's correct option and explanation are not written: they would give the answer away.
 */
export function blueskyPostText(content: PlatformContent): string {
  const body = captionAndLink(content, '\n');
  const { poll } = content;
  if (!poll) return body;
  const pollLines = (content.caption ?? '').includes(poll.question) ? [] : [poll.question];
  poll.options.forEach((option, index) => {
    pollLines.push(`${index + 1}. ${option}`);
  });
  return body ? `${body}\n\n${pollLines.join('\n')}` : pollLines.join('\n');
}

/** A pin's description: the caption alone (the link is the pin's own `link`, sent apart). */
export function pinDescription(content: Pick<PlatformContent, 'caption'>): string {
  return content.caption ?? '';
}

/** A Telegram message or caption: the caption, the link on the next line. */
export function telegramText(content: Pick<PlatformContent, 'caption' | 'link'>): string {
  return captionAndLink(content, '\n');
}

/** A Telegram poll's description: its text, unless that only repeats the question. */
export function telegramPollDescription(content: PlatformContent): string {
  const text = telegramText(content);
  return text === content.poll?.question ? '' : text;
}

/**
 * The text `content` puts on its platform, as that platform's connector composes it. `nativePolls`:
 * the channel takes polls as polls; a Bluesky account does not, so its connector writes the poll into
 * the text (the sandbox and the webhook, standing in for Bluesky, take the poll itself). A platform
 * without a connector of its own gets the caption and the link apart: they are counted as a blank line
 * would join them.
 */
export function platformText(content: PlatformContent, nativePolls: boolean): string {
  switch (content.platform) {
    case 'Mastodon':
      return mastodonStatusText(content);
    case 'X/Twitter':
      return xPostText(content);
    case 'Bluesky': {
      const { poll: _, ...withoutPoll } = content;
      return blueskyPostText(nativePolls ? withoutPoll : content);
    }
    case 'Telegram':
      return content.poll ? telegramPollDescription(content) : telegramText(content);
    case 'Pinterest':
      return pinDescription(content);
    default:
      return captionAndLink(content, '\n\n');
  }
}
