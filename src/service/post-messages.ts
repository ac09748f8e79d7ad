/** The sentences that tell an assistant what happened to a post: when, in the brand's time and UTC, and where. */
import type { PostPayload } from '../domain/post-schemas.js';
import { describeLocalTime, formatTimestamp } from '../domain/time.js';
import type { BrandRecord, CollectionRecord, PostRecord } from '../ports.js';

export function describeChannels(collection: CollectionRecord): string {
  const count = collection.channels.length;
  const inactive = collection.channels.filter((channel) => channel.status === 'INACTIVE');
  let text = `${count} channel${count === 1 ? '' : 's'} of collection "${collection.title}"`;
  if (inactive.length > 0) {
    const names = inactive.map((channel) => channel.name).join(', ');
    text += ` (${inactive.length} INACTIVE, will fail until reconnected: ${names})`;
  }
  return text;
}

export function describeInstant(epochMs: number, brand: BrandRecord): string {
  return `${describeLocalTime(epochMs, brand.timezone)}, ${formatTimestamp(epochMs)} UTC`;
}

export interface Outcome {
  id: number | null;
  brand: BrandRecord;
  collection: CollectionRecord;
  payload: PostPayload;
  dueAtMs: number | null;
}

/** "Post 12 scheduled for Tuesday, November 24, 2026 at 09:00 EST (America/New_York), ... to 12 channels ..." */
export function describeOutcome(outcome: Outcome): string {
  const { id, brand, collection, payload, dueAtMs } = outcome;
  const subject = id === null ? 'The post would be' : `Post ${id}`;
  const channels = describeChannels(collection);
  let text: string;
  switch (payload.publishMode) {
    case 'DRAFT':
      text = `${id === null ? 'The draft would be' : `Draft ${id}`} saved for ${channels}; it is not published or scheduled.`;
      if (dueAtMs !== null) text += ` Planned time: ${describeInstant(dueAtMs, brand)}.`;
      break;
    case 'SCHEDULE':
      text = `${subject}${id === null ? '' : ' is'} scheduled for ${describeInstant(dueAtMs!, brand)}, to ${channels}.`;
      break;
    case 'QUEUE':
      text = `${subject}${id === null ? ' added' : ' added'} to the queue of ${brand.title}: it goes out ${describeInstant(dueAtMs!, brand)}, to ${channels}.`;
      break;
    case 'IMMEDIATE':
      text = `${subject}${id === null ? ' published' : ' is being published'} now to ${channels}.`;
      break;
  }
  if (
    payload.scheduledAt !== undefined &&
    (payload.publishMode === 'QUEUE' || payload.publishMode === 'IMMEDIATE')
  ) {
    text += ` scheduledAt (${payload.scheduledAt}) was ignored because publishMode is ${payload.publishMode}.`;
  }
  return text;
}

/** "scheduled for ..." / "published" / "a draft": the state of a stored post in a phrase. */
export function describePost(post: PostRecord, brand: BrandRecord): string {
  const when = post.dueAtMs === null ? '' : ` for ${describeInstant(post.dueAtMs, brand)}`;
  switch (post.status) {
    case 'draft':
      return `a draft${post.dueAtMs === null ? '' : ` planned${when}`}`;
    case 'queued':
      return `queued${when}`;
    case 'scheduled':
      return `scheduled${when}`;
    default:
      return post.status.replace('_', ' ');
  }
}
