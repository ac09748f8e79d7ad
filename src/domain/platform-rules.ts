/**
 * The platform rules of publishing (product.md, "Publishing"): what each channel receives from a post.
 * An INACTIVE channel fails; a poll goes only to platforms with polls (elsewhere the caption alone, or
 * nothing when there is no caption); Stories only on Instagram and Facebook; the title only where posts
 * have titles; each platform's overrides only to that platform.
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
