/** Order statistics of samples (milliseconds or anything else). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summary(samples: readonly number[]): {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
} {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean,
  };
}

export const median = (samples: readonly number[]): number => summary(samples).p50;

/** Rounds every number of a summary for the JSON (µs precision for milliseconds). */
export function rounded<T extends Record<string, number>>(values: T, digits = 3): T {
  const factor = 10 ** digits;
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, Math.round(value * factor) / factor]),
  ) as T;
}

/** Runs `call` once: its result, its wall time and this process's CPU time (all threads), in ms. */
export async function timed<T>(call: () => Promise<T>): Promise<{ result: T; ms: number; cpuMs: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await call();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { result, ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}
