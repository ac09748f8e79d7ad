/**
 * The signals between the processes on one store: the plan changed (PlanSignal), and their publishing
 * events (EventRelay). Re-exported by ports.ts.
 */
import type { PublishingEvent, PublishingEventSink } from './publisher-port.js';

/**
 * Tells the publishing engines of the other processes on one store that the plan changed: a post was
 * planned, moved or set to publish now, or a stopping process left deliveries for the others. Each engine
 * also polls the store (scheduler.ts), so a signal that is lost (a dropped connection) delays publishing
 * until the next poll, and no more.
 */
export interface PlanSignal {
  /** Tells the other processes; never rejects (a failure is logged, and the poll catches up). */
  announce(): Promise<void>;
  /** Calls `wake` whenever another process announces a change; returns what stops it. */
  listen(wake: () => void): () => void;
  close(): Promise<void>;
}

/**
 * Carries each process's publishing events (MCP logging) to the MCP sessions of the other processes on
 * the store, so that a session hears what happens to its brands' posts whichever instance publishes them.
 * Best effort, like the log it feeds.
 */
export interface EventRelay {
  /** Passes one of this process's events on to the others; never throws. */
  relay(event: PublishingEvent): void;
  /** Calls `hear` with the events the other processes relay; returns what stops it. */
  hear(hear: PublishingEventSink): () => void;
}

/**
 * The plan signal of a store whose processes cannot reach one another (SQLite: processes on one machine
 * sharing a file): each notices the others' changes when it polls.
 */
export const pollingOnly: PlanSignal & EventRelay = {
  announce: async () => undefined,
  listen: () => () => undefined,
  relay: () => undefined,
  hear: () => () => undefined,
  close: async () => undefined,
};
