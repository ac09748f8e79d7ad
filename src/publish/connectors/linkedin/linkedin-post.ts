/**
 * What a post becomes in LinkedIn's Posts API (`POST /rest/posts`): the commentary in LinkedIn's
 * "little text" format, and the content (one image, several, a video, a document, a poll, or an
 * article card for a link).
 *
 * little text (learn.microsoft.com/linkedin/marketing/community-management/shares/little-text-format)
 * reserves `\ | { } @ [ ] ( ) < > # * _ ~` for mentions, hashtags and templates: an unescaped one is
 * read as syntax, and LinkedIn cuts the post there without saying so. Every one is escaped with a
 * backslash, so the text arrives as written (a `#tag` then shows as text, not as a hashtag link).
 */
import type { PlatformContent } from '../../../domain/delivery.js';

const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

/** `text` with little text's reserved characters escaped. */
export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (char) => `\\${char}`);
}

/** The poll periods as LinkedIn names them (its durations: ONE_DAY, THREE_DAYS, SEVEN_DAYS, FOURTEEN_DAYS). */
export const POLL_DURATIONS = { '1d': 'ONE_DAY', '3d': 'THREE_DAYS', '7d': 'SEVEN_DAYS' } as const;

/** An uploaded media file, by its URN. */
export interface LinkedInMedia {
  urn: string;
  kind: 'image' | 'video' | 'document';
  /** The file's name: a document's title. */
  name: string;
}

/** The commentary: the caption, and the link after it when the link does not get an article card. */
export function commentaryOf(content: PlatformContent, linkInText: boolean): string {
  const caption = content.caption ?? '';
  const link = content.link;
  if (!linkInText || !link || caption.includes(link)) return caption;
  return caption ? `${caption}\n\n${link}` : link;
}

/**
 * The article card's title (LinkedIn does not fetch the page): the post's title where the platform
 * rules pass one on (today only to YouTube and Pinterest), else the link's host.
 */
function articleTitle(content: PlatformContent, link: string): string {
  if (content.title?.trim()) return content.title;
  try {
    return new URL(link).host;
  } catch {
    return link;
  }
}

/** The `content` member of the post, when it carries more than text. */
export function contentOf(
  post: PlatformContent,
  media: readonly LinkedInMedia[],
): Record<string, unknown> | undefined {
  const [first] = media;
  if (post.poll) {
    return {
      poll: {
        question: post.poll.question,
        options: post.poll.options.map((text) => ({ text })),
        settings: { duration: POLL_DURATIONS[post.poll.period] },
      },
    };
  }
  if (first && media.length > 1) {
    return {
      multiImage: {
        images: media.map((item) => ({ id: item.urn, ...(post.alt ? { altText: post.alt } : {}) })),
      },
    };
  }
  if (first?.kind === 'image')
    return { media: { id: first.urn, ...(post.alt ? { altText: post.alt } : {}) } };
  if (first) return { media: { id: first.urn, title: first.name } };
  if (post.link) return { article: { source: post.link, title: articleTitle(post, post.link) } };
  return undefined;
}

/** The body of `POST /rest/posts`: published at once, public, in the main feed. */
export function postBody(author: string, post: PlatformContent, media: readonly LinkedInMedia[]) {
  const content = contentOf(post, media);
  const linkInText = content !== undefined && !('article' in content);
  return {
    author,
    commentary: escapeLittleText(commentaryOf(post, linkInText)),
    visibility: 'PUBLIC',
    distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: 'PUBLISHED',
    isReshareDisabledByAuthor: false,
    ...(content ? { content } : {}),
  };
}

/** The public address of a post: `https://www.linkedin.com/feed/update/<urn>`. */
export function postUrl(urn: string): string {
  return `https://www.linkedin.com/feed/update/${urn}`;
}
