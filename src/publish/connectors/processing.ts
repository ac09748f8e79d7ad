/**
 * A step that waits while a platform processes what was uploaded (a video, a container): when to look
 * again and until when, alike for every connector that polls. The first check comes `firstMs` after the
 * step, then each half as long again as the one before, never more than `longestMs` apart; past
 * `deadlineMs` from the step's start the delivery fails with the reason.
 */
import type { PendingOutcome, StepState } from '../../ports.js';

export interface ProcessingSchedule {
  firstMs: number;
  longestMs: number;
  /** How long the platform may process, from `sinceMs`, before the delivery fails. */
  deadlineMs: number;
}

/** The pending outcome of a step whose state counts its `checks` since `sinceMs`. */
export function processingPending(
  state: StepState & { checks: number; sinceMs: number },
  schedule: ProcessingSchedule,
  nowMs: number,
  reason: string,
): PendingOutcome {
  const wait = Math.min(schedule.firstMs * 1.5 ** state.checks, schedule.longestMs);
  return {
    ok: 'pending',
    state: { ...state },
    checkAtMs: nowMs + Math.round(wait),
    reason,
    deadlineAtMs: state.sinceMs + schedule.deadlineMs,
  };
}
