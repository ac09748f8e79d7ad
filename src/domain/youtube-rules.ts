/**
 * What YouTube takes of a video's words (developers.google.com/youtube/v3/docs/videos, `snippet`):
 * a title of at most 100 characters, a description of at most 5,000 bytes (UTF-8), neither with `<` or
 * `>`; tags of at most 500 characters together, counted as YouTube counts them (a comma between two
 * tags, and a tag with a space quoted: two more). Read by the pre-flight and by the connector before it
 * uploads anything.
 *
 * A post without a title takes the first line of its caption as the title (cut to 100 characters,
 * without `<` and `>`): YouTube requires one.
 */
import type { PlatformContent } from './delivery.js';
import { platformText } from './platform-rules.js';

export const YOUTUBE_TITLE_CHARACTERS = 100;
export const YOUTUBE_DESCRIPTION_BYTES = 5_000;
export const YOUTUBE_TAGS_CHARACTERS = 500;

const ANGLE = /[<>]/;
const utf8 = new TextEncoder();

/** The video's title: the post's, else the caption's first line made to fit. */
export function youtubeTitle(content: Pick<PlatformContent, 'title' | 'caption'>): string {
  if (content.title !== undefined && content.title.trim() !== '') return content.title.trim();
  const line = (content.caption ?? '').split('\n').find((text) => text.trim() !== '') ?? '';
  const title = [...line.replace(/[<>]/g, '').trim()];
  if (title.length <= YOUTUBE_TITLE_CHARACTERS) return title.join('') || 'Untitled';
  return `${title
    .slice(0, YOUTUBE_TITLE_CHARACTERS - 1)
    .join('')
    .trimEnd()}…`;
}

/** The video's description: the caption, and the link after it. */
export function youtubeDescription(content: PlatformContent): string {
  return platformText({ ...content, platform: 'YouTube' }, false);
}

/** The post's tags (`platforms.youtube.tags`), without blanks. */
export function youtubeTags(content: Pick<PlatformContent, 'overrides'>): string[] {
  const tags = content.overrides?.tags;
  if (!Array.isArray(tags)) return [];
  return tags
    .filter((tag): tag is string => typeof tag === 'string')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** How long YouTube counts the tags: each tag, a comma between two, and quotes around one with a space. */
export function youtubeTagsLength(tags: readonly string[]): number {
  const each = tags.map((tag) => [...tag].length + (/\s/.test(tag) ? 2 : 0));
  return each.reduce((sum, length) => sum + length, 0) + Math.max(0, tags.length - 1);
}

/** What YouTube would refuse of the video's words, each saying how to fix it; empty when none. */
export function youtubeProblems(content: PlatformContent): string[] {
  const problems: string[] = [];
  const title = content.title?.trim();
  if (title && [...title].length > YOUTUBE_TITLE_CHARACTERS) {
    problems.push(
      `The title is ${[...title].length} characters; YouTube takes at most ${YOUTUBE_TITLE_CHARACTERS}: shorten it.`,
    );
  }
  if (title && ANGLE.test(title)) problems.push('YouTube refuses < and > in a title: remove them.');
  const description = youtubeDescription(content);
  const bytes = utf8.encode(description).length;
  if (bytes > YOUTUBE_DESCRIPTION_BYTES) {
    problems.push(
      `The description (the caption and the link) is ${bytes} bytes in UTF-8; YouTube takes at most ${YOUTUBE_DESCRIPTION_BYTES}: shorten the caption, or give YouTube its own with platforms.youtube.caption.`,
    );
  }
  if (ANGLE.test(description)) {
    problems.push(
      'YouTube refuses < and > in a description: remove them from the caption, or give YouTube its own with platforms.youtube.caption.',
    );
  }
  const tags = youtubeTags(content);
  const length = youtubeTagsLength(tags);
  if (length > YOUTUBE_TAGS_CHARACTERS) {
    problems.push(
      `The tags are ${length} characters as YouTube counts them (a comma between tags, quotes around a tag with a space); it takes at most ${YOUTUBE_TAGS_CHARACTERS}: drop some of platforms.youtube.tags.`,
    );
  }
  if (tags.some((tag) => ANGLE.test(tag))) problems.push('YouTube refuses < and > in tags: remove them.');
  return problems;
}
