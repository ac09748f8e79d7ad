/**
 * What an X post is made of (`POST /2/tweets`, whose body takes no unknown member): the text as the
 * pre-flight measured it (xPostText), the uploaded media's ids, or a poll (X takes one or the other),
 * or, for the auto-comment, the post it replies to. And how a post of ours is recognised among the
 * account's recent ones, which is all `confirm` can go by: X has no idempotency key.
 */
import type { PlatformContent } from '../../../domain/delivery.js';
import { xPostText } from '../../../domain/platform-rules.js';

/** A poll's period in X's `duration_minutes` (5 to 10,080). */
const POLL_MINUTES = { '1d': 1_440, '3d': 4_320, '7d': 10_080 } as const;

/** The body of the post of `content`, with the media uploaded for it. */
export function postBody(content: PlatformContent, mediaIds: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = { text: xPostText(content) };
  if (mediaIds.length > 0) body.media = { media_ids: [...mediaIds] };
  if (content.poll) {
    // A quiz's correct option and explanation have no X equivalent: a plain poll.
    body.poll = { options: content.poll.options, duration_minutes: POLL_MINUTES[content.poll.period] };
  }
  return body;
}

/** The auto-comment: a reply to the post (docs.x.com/x-api/posts/manage-tweets: `reply`). */
export function replyBody(text: string, postId: string): Record<string, unknown> {
  return { text, reply: { in_reply_to_tweet_id: postId } };
}

/** What the media of a post allow on X, or why not: up to 4 images, or one video or GIF alone. */
export function mediaRefusal(types: readonly string[]): string | undefined {
  const moving = types.filter((type) => type.startsWith('video/') || type === 'image/gif').length;
  if (types.length > 4) return `X takes at most 4 media in one post; this one has ${types.length}.`;
  if (moving > 0 && types.length > 1) {
    return 'X takes up to 4 images, or one video or GIF alone, in one post: send the video in a post of its own.';
  }
  return undefined;
}

const URL_PATTERN = /https?:\/\/\S+/g;

/**
 * A post's text as X gives it back and as we sent it, made comparable: X shortens every link to a
 * t.co one (and adds one for the media), escapes &, < and >, and normalises to NFC.
 */
export function comparableText(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
    .normalize('NFC')
    .replace(URL_PATTERN, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** One post of the account's timeline (`GET /2/users/:id/tweets`). */
export interface TimelinePost {
  id: string;
  text: string;
  mediaKeys: string[];
  inReplyTo: string | null;
}

/**
 * The post a commit of `content` made, among the account's recent posts: the same text, not a reply,
 * and, when the commit carried media whose keys are known, those media.
 */
export function findOurPost(
  posts: readonly TimelinePost[],
  content: PlatformContent,
  mediaKeys: readonly string[],
): TimelinePost | undefined {
  const text = comparableText(xPostText(content));
  return posts.find(
    (post) =>
      post.inReplyTo === null &&
      comparableText(post.text) === text &&
      mediaKeys.every((key) => post.mediaKeys.includes(key)),
  );
}

/** The timeline's posts from X's answer, whatever members it left out. */
export function timelineOf(json: unknown): TimelinePost[] {
  const data = (json as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return [];
  return data.flatMap((item) => {
    const post = (item ?? {}) as {
      id?: unknown;
      text?: unknown;
      attachments?: { media_keys?: unknown };
      referenced_tweets?: { type?: unknown; id?: unknown }[];
    };
    if (typeof post.id !== 'string' || typeof post.text !== 'string') return [];
    const keys = post.attachments?.media_keys;
    const replied = Array.isArray(post.referenced_tweets)
      ? post.referenced_tweets.find((ref) => ref?.type === 'replied_to')
      : undefined;
    return [
      {
        id: post.id,
        text: post.text,
        mediaKeys: Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [],
        inReplyTo: typeof replied?.id === 'string' ? replied.id : null,
      },
    ];
  });
}
