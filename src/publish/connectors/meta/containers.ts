/**
 * What Meta's two container platforms (Threads and Instagram) do alike once a container is made: it
 * processes (checked again later, holding nothing: Meta suggests once a minute, for at most five), its
 * status says what a step does next (`preparedByStatus`, `commitByStatus`), and it is published with
 * one call whose answer is the post's id, after which the post's permalink is read (a permalink that
 * cannot be read leaves the post without a URL, never unpublished).
 */
import type {
  FailedOutcome,
  PendingOutcome,
  PrepareOutcome,
  PublishOutcome,
  StepOutcome,
  StepState,
} from '../../../ports.js';
import type { PlatformAnswer } from '../../platform-http.js';
import type { PlatformApi } from '../platform-api.js';
import { type ProcessingSchedule, processingPending } from '../processing.js';
import { metaLimitOf } from './graph.js';

/** How a processing container is checked: 10 s, then half as long again each time, up to a minute; 30 minutes at most. */
export const CONTAINER_PROCESSING: ProcessingSchedule = {
  firstMs: 10_000,
  longestMs: 60_000,
  deadlineMs: 30 * 60_000,
};

/** What the container steps read of a delivery's state (each connector's holds at least this). */
export type ContainerState = { containerId: string; sinceMs: number; checks: number };

/** What the shared steps are told of the connector using them. */
export interface ContainerPlatform {
  name: 'Instagram' | 'Threads';
  account: string;
  /** How long after its creation a container is used (an hour short of Meta's 24). */
  keptMs: number;
  /** Meta's word on an ERROR that says the platform could not fetch the media. */
  fetchFailed: RegExp;
  log: (message: string) => void;
}

/** A container's status (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED) and Meta's word on it. */
export interface ContainerStatus {
  code: string;
  said: string | undefined;
  answer: PlatformAnswer;
}

/**
 * Reads a container's status from its two fields (Threads: `status`, `error_message`; Instagram:
 * `status_code`, `status`); a status Meta leaves out reads as FINISHED.
 */
export async function readContainerStatus<Stage extends string>(
  api: PlatformApi<Stage>,
  containerId: string,
  [codeField, saidField]: readonly [string, string],
): Promise<ContainerStatus> {
  const answer = await api.call(
    'GET',
    `/${encodeURIComponent(containerId)}?fields=${codeField},${saidField}`,
  );
  const json = (answer.json ?? {}) as Record<string, unknown>;
  const code = json[codeField];
  const said = json[saidField];
  return {
    code: typeof code === 'string' ? code.toUpperCase() : 'FINISHED',
    said: typeof said === 'string' && said ? said : undefined,
    answer,
  };
}

/** A container that could not be made ready (ERROR, or EXPIRED unpublished): refused with Meta's word. */
export function containerRefusal(
  status: ContainerStatus,
  platform: ContainerPlatform,
): FailedOutcome | undefined {
  if (status.code !== 'ERROR' && status.code !== 'EXPIRED') return undefined;
  const fetching = platform.fetchFailed.test(status.said ?? '');
  return {
    ok: false,
    kind: 'refused',
    reason: `${platform.name} could not make the post ready (${status.code}${status.said ? `: ${status.said}` : ''})${fetching ? `: ${platform.name} must be able to fetch the media address from the internet` : ''}.`,
  };
}

/** A prepare by its container's status: pending while processing, refused when it failed, else prepared. */
export function preparedByStatus(
  state: ContainerState,
  status: ContainerStatus,
  platform: ContainerPlatform,
  nowMs: number,
): PrepareOutcome {
  if (status.code === 'IN_PROGRESS') return containerPending({ ...state }, platform.name, nowMs);
  return (
    containerRefusal(status, platform) ?? {
      ok: 'prepared',
      state: { ...state },
      expiresAtMs: state.sinceMs + platform.keptMs,
      ...metaLimitOf(status.answer.headers, nowMs),
    }
  );
}

/**
 * A commit by its container's status: pending while processing; PUBLISHED is published already (by an
 * earlier attempt whose answer was lost: a container is published once, never twice); refused when it
 * failed; FINISHED, `publish` (the connector's quota read and publish call).
 */
export async function commitByStatus(
  state: ContainerState,
  status: ContainerStatus,
  platform: ContainerPlatform,
  nowMs: number,
  publish: () => Promise<StepOutcome>,
): Promise<StepOutcome> {
  if (status.code === 'IN_PROGRESS') return containerPending({ ...state }, platform.name, nowMs);
  if (status.code === 'PUBLISHED') {
    platform.log(
      `${platform.name} container ${state.containerId} of ${platform.account} was published already.`,
    );
    return { ok: true, externalId: null, url: null };
  }
  return containerRefusal(status, platform) ?? (await publish());
}

/** How a connector reaches its containers, for `deliverByContainer`. */
export interface ContainerSteps<S extends ContainerState> {
  /** The state's container (made ahead by `prepare`) and its status, as the commit's. */
  progress(state: S): Promise<{ state: S; status: ContainerStatus }>;
  /** A new container for the commit, and its status. */
  create(): Promise<{ state: S; status: ContainerStatus }>;
  commit(state: S, status: ContainerStatus): Promise<StepOutcome>;
}

/**
 * The due-time step: the container `prepare` made, when it is young enough (`keptMs`) and not EXPIRED
 * (Meta's word for one left unpublished 24 hours), else a new one; then the commit by its status. `at`
 * is told which call is under way, the stage a failure is classified as.
 */
export async function deliverByContainer<S extends ContainerState>(
  prepared: S | undefined,
  platform: ContainerPlatform,
  nowMs: number,
  steps: ContainerSteps<S>,
  at: (stage: 'container' | 'read') => void,
): Promise<StepOutcome> {
  if (prepared && prepared.sinceMs + platform.keptMs >= nowMs) {
    at('read');
    const now = await steps.progress(prepared);
    if (now.status.code !== 'EXPIRED') return steps.commit(now.state, now.status);
  }
  at('container');
  const fresh = await steps.create();
  at('read');
  return steps.commit(fresh.state, fresh.status);
}

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
