/**
 * How much more memory this process holds at its most while some work runs than before it: resident
 * memory sampled every 10 ms (and Linux's peak, reset first, when it can be), and the heap with its
 * buffers. A full collection runs before, and a scavenge at each sample: V8 collects buffers no longer
 * used only after some 64 MiB of them, so without it the figures would show that garbage rather than
 * what the work holds. Used by the tests that stream media (media-memory, youtube-resume).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const MIB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

/** Linux's peak resident size of this process, in bytes, after resetting it; undefined elsewhere. */
function peakRss(reset = false): number | undefined {
  try {
    if (reset) writeFileSync('/proc/self/clear_refs', '5');
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` and reports how much more memory the process held at its most than before it. `collection`:
 * what runs before each sample; `major` where chunks outlive two scavenges, as when the receiving end
 * is slow and they wait in a queue, and would otherwise count as held although nothing refers to them.
 */
export async function growthDuring(work: () => Promise<void>, collection: 'minor' | 'major' = 'minor') {
  collect();
  const before = process.memoryUsage();
  const hwmReset = peakRss(true) !== undefined;
  let sampled = before.rss;
  let heap = before.heapUsed + before.arrayBuffers;
  const sampler = setInterval(() => {
    // A scavenge frees the chunks already sent (young objects) at little cost.
    collect({ type: collection });
    const now = process.memoryUsage();
    sampled = Math.max(sampled, now.rss);
    heap = Math.max(heap, now.heapUsed + now.arrayBuffers);
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const hwm = hwmReset ? peakRss() : undefined;
  const rss = Math.max(sampled, hwm ?? 0) - before.rss;
  return { rss, heap: heap - (before.heapUsed + before.arrayBuffers) };
}

/** One line on stderr: what was sent, and how much the memory grew. */
export function reportGrowth(what: string, size: number, growth: { rss: number; heap: number }): void {
  const mib = (bytes: number) => (bytes / MIB).toFixed(1);
  process.stderr.write(
    `${what}: ${mib(size)} MiB sent; RSS grew ${mib(growth.rss)} MiB, heap and buffers ${mib(growth.heap)} MiB\n`,
  );
}
