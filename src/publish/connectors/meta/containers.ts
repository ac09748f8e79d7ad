/**
 * What Meta's two container platforms (Threads and Instagram) do alike once a container is made: it
 * processes (checked again later, holding nothing: Meta suggests once a minute, for at most five), and
 * it is published with one call whose answer is the post's id, after which the post's permalink is read
 * (a permalink that cannot be read leaves the post without a URL, never unpublished).
 */
import type { PendingOutcome, PublishOutcome, StepState } from '../../../ports.js';
import type { PlatformApi } from '../platform-api.js';
import { type ProcessingSchedule, processingPending } from '../processing.js';
import { metaLimitOf } from './graph.js';

/** How a processing container is checked: 10 s, then half as long again each time, up to a minute; 30 minutes at most. */
export const CONTAINER_PROCESSING: ProcessingSchedule = {
  firstMs: 10_000,
  longestMs: 60_000,
  deadlineMs: 30 * 60_000,
};

/** A container still processing: checked again later. */
export function containerPending(
  state: StepState & { checks: number; sinceMs: number },
  platform: string,
  nowMs: number,
): PendingOutcome {
  return processingPending(
    state,
    CONTAINER_PROCESSING,
    nowMs,
    `${platform} is processing the media of the post.`,
  );
}

/** The `id` of a Graph answer, when it has one. */
export const idOf = (json: unknown): string | null => {
  const value = (json as Record<string, unknown> | undefined)?.id;
  return typeof value === 'string' && value ? value : null;
};

/** Publishes the container (`POST <edge>` with its `creation_id`), then reads the post's permalink. */
export async function publishContainer<Stage extends string>(
  api: PlatformApi<Stage>,
  edge: string,
  containerId: string,
  nowMs: number,
): Promise<PublishOutcome> {
  const answer = await api.call('POST', edge, () => new URLSearchParams({ creation_id: containerId }));
  const id = idOf(answer.json);
  let url: string | null = null;
  if (id) {
    try {
      const read = await api.call('GET', `/${encodeURIComponent(id)}?fields=permalink`);
      const permalink = (read.json as { permalink?: unknown } | undefined)?.permalink;
      if (typeof permalink === 'string' && /^https:\/\//.test(permalink)) url = permalink;
    } catch {
      // The post is published: a permalink that cannot be read leaves it without a URL.
    }
  }
  return { ok: true, externalId: id, url, ...metaLimitOf(answer.headers, nowMs) };
}
