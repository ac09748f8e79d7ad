/**
 * The short text of a post in tool results: its status, its time in the brand's timezone and in UTC,
 * what it says, and how each channel's delivery went once there are deliveries.
 */
import type { Post, PreflightWarning } from '../domain/post-schemas.js';
import { describeLocalTime } from '../domain/time.js';

/** "Saturday, November 21, 2026 at 09:00 EST (America/New_York), 2026-11-21T14:00:00.000000Z UTC" */
export function describePostTime(post: Pick<Post, 'dueAt' | 'timezone'>): string {
  if (post.dueAt === null) return 'none set';
  return `${describeLocalTime(Date.parse(post.dueAt), post.timezone)}, ${post.dueAt} UTC`;
}

/** "queued for ...", "a draft, no time set", "partially published (due ...)" */
export function describePostState(post: Post): string {
  const time = describePostTime(post);
  switch (post.status) {
    case 'draft':
      return post.dueAt === null ? 'a draft, no time set' : `a draft, planned for ${time}`;
    case 'queued':
    case 'scheduled':
      return `${post.status} for ${time}`;
    case 'cancelled':
      return post.dueAt === null ? 'cancelled' : `cancelled (it was planned for ${time})`;
    default:
      return `${post.status.replace('_', ' ')} (due ${time})`;
  }
}

function excerpt(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** "11 pending, 1 failed", in the order a delivery moves through. */
function deliveryCounts(post: Post): string {
  const counts = new Map<string, number>();
  for (const delivery of post.deliveries) counts.set(delivery.status, (counts.get(delivery.status) ?? 0) + 1);
  return ['pending', 'sending', 'sent', 'failed', 'skipped']
    .filter((status) => counts.has(status))
    .map((status) => `${counts.get(status)} ${status}`)
    .join(', ');
}

/** One line per post, for lists. */
export function postLine(post: Post): string {
  const what = post.content.caption ?? (post.content.poll ? `Poll: ${post.content.poll.question}` : '');
  let line = `- Post ${post.id}: ${describePostState(post)}; collection ${post.collectionId}; "${excerpt(what, 80)}"`;
  if (post.deliveries.length > 0) line += `; deliveries: ${deliveryCounts(post)}`;
  return line;
}

/** The whole post: state, content, and every delivery with its outcome. */
export function postSummary(post: Post): string {
  const lines = [
    `Post ${post.id} is ${describePostState(post)}; collection ${post.collectionId}, publishMode ${post.publishMode}.`,
  ];
  if (post.content.caption !== undefined) lines.push(`Caption: "${excerpt(post.content.caption, 500)}"`);
  if (post.content.poll) lines.push(`Poll: "${post.content.poll.question}"`);
  if (post.deliveries.length > 0) {
    lines.push(`Deliveries: ${deliveryCounts(post)}.`);
    for (const delivery of post.deliveries) {
      const outcome = delivery.reason ? `${delivery.status}: ${delivery.reason}` : delivery.status;
      lines.push(`- ${delivery.channelName} [${delivery.channelType}]: ${outcome}`);
    }
  }
  return lines.join('\n');
}

/** The warnings as lines that lead a tool's result text. */
export function warningLines(warnings: readonly PreflightWarning[] | undefined): string[] {
  if (!warnings || warnings.length === 0) return [];
  const label = { fail: 'WILL FAIL', skip: 'SKIPPED', change: 'CHANGED' } as const;
  return [
    `Before publishing, per channel (${warnings.length}):`,
    ...warnings.map((w) => `- ${w.channelName}: ${label[w.outcome]}: ${w.message}`),
    '',
  ];
}
