/**
 * The server's memory while it refuses a huge body at /mcp: the BUILT program (`serve`, a process of its
 * own, so that only its memory is measured) receives a valid `initialize` padded with 50 MB of spaces,
 * chunked, without a length, from a key that works. It must answer 413 and its resident memory (peak,
 * from /proc: VmHWM reset just before, and VmRSS polled) must stay within a few MB of what it was: the
 * body is read only to the 4 MiB limit. (Read whole, as it once was, it cost several times its size.)
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, expect, it } from 'vitest';
import { cleanup, requireBuild, startServe } from '../mcp/cli-harness.js';
import { INITIALIZE, MiB, postToMcp } from './streamed-post.js';

afterEach(cleanup);

/**
 * The 413 says `Connection: close` (keep-alive-413.test.ts), and the server closes once it has answered:
 * a client still sending then may get EPIPE before it reads the answer, which the reset discards. The
 * post is made again then (at most three times); the memory is measured across all of them.
 */
async function postUntilAnswered(url: string, key: string, json: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await postToMcp(url, key, { head: json.slice(0, -1), size: 50 * MiB, tail: '}' });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt === 3 || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw error;
    }
  }
}

async function residentKb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
}

it.skipIf(!existsSync('/proc/self/status'))(
  'refuses 50 MB sent chunked to /mcp with 413 while its resident memory grows by a few MB at most',
  async () => {
    requireBuild();
    const serve = await startServe();
    const pid = serve.child.pid!;
    const json = JSON.stringify(INITIALIZE);
    // Everything the refusal loads and compiles is in place before measuring.
    await postToMcp(serve.url, serve.key, { head: '{', size: 6 * MiB });

    const before = await residentKb(pid, 'VmRSS');
    await writeFile(`/proc/${pid}/clear_refs`, '5'); // VmHWM := VmRSS
    let peak = before;
    const poll = setInterval(async () => {
      peak = Math.max(peak, await residentKb(pid, 'VmRSS').catch(() => 0));
    }, 5);
    let answer: Awaited<ReturnType<typeof postToMcp>>;
    try {
      answer = await postUntilAnswered(serve.url, serve.key, json);
      // What arrived after the answer is discarded: give the server the moment it takes.
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      clearInterval(poll);
    }
    peak = Math.max(peak, await residentKb(pid, 'VmHWM'), await residentKb(pid, 'VmRSS'));
    const grownMiB = (peak - before) / 1024;
    expect(grownMiB, `peak ${peak} kB, before ${before} kB`).toBeLessThan(12);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.message).toContain('4 MiB');
  },
);
