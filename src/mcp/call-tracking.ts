/** What the server keeps of one tool call while it runs: whether it is under way, and its progress. */
import type { InFlightCalls } from './in-flight.js';
import type { ToolContext } from './tool.js';

/**
 * Marks one call as under way for a graceful close, except while it waits for the user: a closing
 * transport waits for work to finish, not for a person to answer (closing then ends the question).
 */
export function trackCall(inFlight: InFlightCalls | undefined) {
  let release = () => {};
  const resume = () => {
    inFlight?.track(
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
  };
  resume();
  return {
    async pausedDuring<T>(wait: Promise<T>): Promise<T> {
      release();
      try {
        return await wait;
      } finally {
        resume();
      }
    },
    end: () => release(),
  };
}

/** Progress notifications for one call: at most one per percent (or per MiB when the total is unknown). */
export function progressReporter(
  token: string | number | undefined,
  send: (params: {
    progressToken: string | number;
    progress: number;
    total?: number;
    message?: string;
  }) => unknown,
): ToolContext['progress'] {
  if (token === undefined) return () => undefined;
  let last = -1;
  return (done, total, message) => {
    const step = total ? Math.max(1, Math.floor(total / 100)) : 1024 * 1024;
    if (last >= 0 && done - last < step && done !== total) return;
    last = done;
    send({
      progressToken: token,
      progress: done,
      ...(total ? { total } : {}),
      ...(message ? { message } : {}),
    });
  };
}
