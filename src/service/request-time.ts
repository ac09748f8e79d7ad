/**
 * The time of a request: read once, as it arrives, and the same for every rule that judges it (a
 * scheduledAt must be in the future), however long the database then takes to answer. A slow or frozen
 * database made posts scheduled a few seconds ahead come back "must be a future date" once it answered.
 *
 * The REST adapter opens a request (`duringRequest`) before anything waits, before its API key is looked
 * up; the first reading of a clock inside it (`requestTime`) is that clock's time for the whole request
 * (per clock: the key's lookup reads the system clock, a test's service its own). Outside a request, and
 * over MCP (whose tool call may first wait for a person to confirm it), `requestTime` reads the clock:
 * each operation of the service reads it once, as it starts, and passes it down.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../ports.js';

const requests = new AsyncLocalStorage<Map<Clock, number>>();

/** Runs `work` as one request (inside one already, as part of it). */
export function duringRequest<T>(work: () => T): T {
  return requests.getStore() ? work() : requests.run(new Map(), work);
}

/** The request's time on `clock`: its first reading inside the request; outside one, `clock.now()`. */
export function requestTime(clock: Clock): number {
  const times = requests.getStore();
  if (!times) return clock.now();
  let time = times.get(clock);
  if (time === undefined) {
    time = clock.now();
    times.set(clock, time);
  }
  return time;
}
