/**
 * An Instagram post's containers (ig-user/media, ig-container): made from the post (instagram-post.ts
 * says what each field becomes), and followed while Meta processes them. A carousel with a video is
 * made in two steps: its items first, then, once every item is FINISHED (a video item takes minutes,
 * and a carousel of items still processing is refused, as integrators report), the carousel itself: the
 * state holds the items meanwhile, with no container of its own yet (`containerId` empty).
 */
import type { DeliveryJob } from '../../../ports.js';
import type { ConnectorContext } from '../../connector.js';
import { type ContainerStatus, idOf, readContainerStatus } from '../meta/containers.js';
import { NotForPlatform, type PlatformApi } from '../platform-api.js';
import { checkPost, childForm, type InstagramMedia, isVideo, postForm } from './instagram-post.js';

/** What the steps store (JSON in the store, read by any process). */
export interface InstagramState {
  step: 'prepare' | 'commit';
  /** The post's container; empty while a carousel waits for its items. */
  containerId: string;
  /** A carousel's items, while they process before the carousel is made. */
  children?: string[];
  sinceMs: number;
  checks: number;
}

export function readState(state: DeliveryJob['state']): InstagramState | undefined {
  const value = state as Partial<InstagramState>;
  if (value.step !== 'prepare' && value.step !== 'commit') return undefined;
  const children = Array.isArray(value.children) ? value.children.filter((id) => typeof id === 'string') : [];
  const containerId = typeof value.containerId === 'string' ? value.containerId : '';
  if (!containerId && children.length === 0) return undefined;
  return {
    step: value.step,
    containerId,
    ...(children.length > 0 ? { children } : {}),
    sinceMs: typeof value.sinceMs === 'number' ? value.sinceMs : 0,
    checks: typeof value.checks === 'number' ? value.checks : 0,
  };
}

export { idOf };

/** A container's `status_code` (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED) and its `status`. */
export type Status = ContainerStatus;

export class InstagramContainers {
  constructor(
    private readonly api: PlatformApi<'container' | 'read'>,
    private readonly user: string,
    private readonly context: Pick<ConnectorContext, 'publicMediaUrl' | 'clock'>,
  ) {}

  /** The public addresses of the post's files; an uploaded file without one is refused. */
  private async mediaOf(job: DeliveryJob): Promise<InstagramMedia[]> {
    const media: InstagramMedia[] = [];
    for (const element of job.content.media) {
      const url = element.url ?? (await this.context.publicMediaUrl?.(job.brandId, element));
      if (!url) {
        throw new NotForPlatform(
          'Instagram fetches every media file from a public address, and this server has none for an uploaded file: run serve with SOCIAL_PUBLISHER_PUBLIC_URL set to its public https address (or give the file as a public URL).',
        );
      }
      media.push({ url, video: isVideo(element.type, url) });
    }
    return media;
  }

  /**
   * The post's containers: a carousel's items, then (at once for images, after they processed for a
   * video: see `progress`) the post's own. Its state, and the status to act on.
   */
  async create(
    job: DeliveryJob,
    step: InstagramState['step'],
  ): Promise<{ state: InstagramState; status: Status }> {
    const media = await this.mediaOf(job);
    checkPost(job, media); // refuses what Instagram would refuse before any container is made
    const state: InstagramState = { step, containerId: '', sinceMs: this.context.clock.now(), checks: 0 };
    if (media.length > 1 && job.content.format !== 'story') {
      const children: string[] = [];
      for (const file of media) {
        const child = idOf((await this.api.call('POST', `/${this.user}/media`, () => childForm(file))).json);
        if (!child) throw new NotForPlatform('Instagram answered a carousel item without an id.');
        children.push(child);
      }
      state.children = children;
      if (media.some((file) => file.video)) return this.progress(job, state);
    }
    return this.made(job, state, media);
  }

  /** Where the containers are: a carousel still waiting for its items is made once they are FINISHED. */
  async progress(
    job: DeliveryJob,
    state: InstagramState,
  ): Promise<{ state: InstagramState; status: Status }> {
    if (state.containerId) return { state, status: await this.status(state.containerId) };
    let last: Status | undefined;
    for (const child of state.children ?? []) {
      last = await this.status(child);
      if (last.code !== 'FINISHED') return { state, status: last };
    }
    return this.made(job, state, await this.mediaOf(job));
  }

  /** The post's own container (a carousel's with its items), and its status. */
  private async made(job: DeliveryJob, state: InstagramState, media: InstagramMedia[]) {
    const form = postForm(job, media, state.children ?? []);
    const containerId = idOf((await this.api.call('POST', `/${this.user}/media`, () => form)).json);
    if (!containerId)
      throw new NotForPlatform('Instagram answered the container without an id: publish again.');
    const { children: _made, ...rest } = state;
    const next = { ...rest, containerId };
    return { state: next, status: await this.status(containerId) };
  }

  status(containerId: string): Promise<Status> {
    return readContainerStatus(this.api, containerId, ['status_code', 'status']);
  }
}
