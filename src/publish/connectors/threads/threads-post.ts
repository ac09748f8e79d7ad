/**
 * What a post becomes on Threads (developers.facebook.com/documentation/threads/posts and
 * …/create-posts/polls): the containers to create, each a form of `POST /me/threads`.
 *
 * - no media: `media_type=TEXT` with the text (and `poll_attachment` for a poll: text posts only,
 *   2 to 4 options of 1 to 25 characters);
 * - one file: `IMAGE` with `image_url` or `VIDEO` with `video_url`, the text beside it;
 * - 2 to 20 files: a carousel: one child per file (`is_carousel_item=true`), then `CAROUSEL` with
 *   `children` (their ids, comma separated) and the text.
 * The text is the caption, with the link after it when the caption does not hold it already (Threads
 * makes the first link of a text post its preview), and a poll's question (a Threads poll has options
 * only) unless the caption asks it. `alt_text` is sent for one image or video
 * (unconfirmed in the stored pages beyond SDKs that send it).
 */
import { threadsPostText } from '../../../domain/platform-rules.js';
import type { DeliveryJob } from '../../../ports.js';
import { THREADS_TEXT_LIMIT, threadsTextLength } from './threads-account.js';
import { NotForThreads } from './threads-api.js';

export const THREADS_MAX_CAROUSEL = 20;

/** A file Threads fetches: where, and whether it is a video. */
export interface ThreadsMedia {
  url: string;
  video: boolean;
}

const VIDEO_EXTENSIONS = /\.(mp4|mov|m4v)(?:[?#]|$)/i;

export function isVideo(type: string | undefined, url: string): boolean {
  return type ? type.startsWith('video/') : VIDEO_EXTENSIONS.test(url);
}

/**
 * The text of the post, as the pre-flight measured it (platform-rules.ts `threadsPostText`): the
 * caption, the link and a poll's question, each unless the caption holds it already.
 */
export function textOf(content: DeliveryJob['content']): string {
  return threadsPostText(content).trim();
}

/** Refuses, before anything is sent, what Threads would refuse. */
export function checkText(text: string): void {
  const length = threadsTextLength(text);
  if (length > THREADS_TEXT_LIMIT) {
    throw new NotForThreads(
      `The text is too long for Threads: ${length} characters as Threads counts them (an emoji counts its UTF-8 bytes), at most ${THREADS_TEXT_LIMIT}.`,
    );
  }
}

const POLL_KEYS = ['option_a', 'option_b', 'option_c', 'option_d'];

/** The form of the post's own container (the carousel's, with its children's ids). */
export function postForm(job: DeliveryJob, media: readonly ThreadsMedia[], children: readonly string[]) {
  const { content } = job;
  const text = textOf(content);
  checkText(text);
  const form = new URLSearchParams();
  if (media.length === 0) {
    if (!text && !content.poll) throw new NotForThreads('A Threads post needs a text or a media file.');
    form.set('media_type', 'TEXT');
    if (content.poll) {
      const options = content.poll.options;
      if (options.length < 2 || options.length > 4) {
        throw new NotForThreads('A Threads poll has 2 to 4 options.');
      }
      form.set(
        'poll_attachment',
        JSON.stringify(Object.fromEntries(options.map((o, i) => [POLL_KEYS[i], o]))),
      );
    }
  } else if (media.length === 1) {
    const [file] = media as [ThreadsMedia];
    form.set('media_type', file.video ? 'VIDEO' : 'IMAGE');
    form.set(file.video ? 'video_url' : 'image_url', file.url);
    if (content.alt) form.set('alt_text', content.alt);
  } else {
    if (media.length > THREADS_MAX_CAROUSEL) {
      throw new NotForThreads(
        `A Threads carousel holds at most ${THREADS_MAX_CAROUSEL} files, not ${media.length}.`,
      );
    }
    form.set('media_type', 'CAROUSEL');
    form.set('children', children.join(','));
  }
  if (content.poll && media.length > 0) throw new NotForThreads('Threads takes a poll on a text post only.');
  if (text) form.set('text', text);
  return form;
}

/** The form of one carousel item. */
export function childForm(file: ThreadsMedia): URLSearchParams {
  return new URLSearchParams({
    media_type: file.video ? 'VIDEO' : 'IMAGE',
    [file.video ? 'video_url' : 'image_url']: file.url,
    is_carousel_item: 'true',
  });
}
