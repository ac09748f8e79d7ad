/**
 * Idle RSS: the stdio server (fresh data directory, demo workspace) after `initialize`, a few seconds
 * idle (the bar), and again once V8's memory reducer has run (it shrinks the young generation after
 * about 8 s without work): the median of three; server-everything and the bare responder the same way,
 * for reference. All run side by side: idle, they do not disturb each other.
 */
import { join } from 'node:path';
import { connectStdio } from './lib/mcp.js';
import { EVERYTHING, MAIN, mib, procStatusKb, serverEnv, sleep, tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';

const SETTLED_SECONDS = 15;

async function idleRssMiB(args: string[], env: Record<string, string> | undefined, idleMs: number) {
  const server = await connectStdio(args, env);
  try {
    await sleep(idleMs);
    const rss = mib(procStatusKb(server.pid, 'VmRSS'));
    await sleep(SETTLED_SECONDS * 1000 - idleMs);
    return {
      rss,
      settled: mib(procStatusKb(server.pid, 'VmRSS')),
      peak: mib(procStatusKb(server.pid, 'VmHWM')),
    };
  } finally {
    await server.close();
  }
}

export async function idleRss(options: { idleSeconds?: number } = {}): Promise<Figure[]> {
  const idleMs = (options.idleSeconds ?? 3) * 1000;
  const bareResponder = join(import.meta.dirname, 'fixtures', 'bare-responder.mjs');
  const [ours1, ours2, ours3, everything, bare] = await Promise.all([
    // Three of ours: when the young generation last grew varies from start to start.
    idleRssMiB([MAIN], serverEnv(tempDir()), idleMs),
    idleRssMiB([MAIN], serverEnv(tempDir()), idleMs),
    idleRssMiB([MAIN], serverEnv(tempDir()), idleMs),
    idleRssMiB([EVERYTHING, 'stdio'], undefined, idleMs),
    idleRssMiB([bareResponder], undefined, idleMs),
  ]);
  const runs = [ours1, ours2, ours3].sort((a, b) => a.rss - b.rss);
  const ours = { ...runs[1]!, settled: [...runs].sort((a, b) => a.settled - b.settled)[1]!.settled, runs };
  return [
    {
      name: `idle RSS, stdio server, initialize + ${idleMs / 1000} s (median of 3)`,
      value: ours.rss,
      unit: 'MiB',
      bar: '≤ 80 MB',
      ratio: ours.rss / 80,
      pass: ours.rss <= 80,
      details: { ours, everything, bare },
    },
    {
      name: `idle RSS, stdio server, initialize + ${SETTLED_SECONDS} s`,
      value: ours.settled,
      unit: 'MiB',
      bar: '(diagnostic: once V8 has shrunk the heap)',
      ratio: ours.settled / 80,
      details: { ours },
    },
    {
      name: `idle RSS, server-everything / bare responder, + ${idleMs / 1000} s`,
      value: everything.rss,
      unit: 'MiB',
      reference: { name: 'bare', value: bare.rss },
      bar: '(reference, no bar)',
      details: { everything, bare },
    },
  ];
}
