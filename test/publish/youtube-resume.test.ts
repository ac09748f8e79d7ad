/**
 * A 100 MiB video to YouTube whose connection breaks halfway: the stand-in keeps the bytes that came
 * before the break (at an offset that is no chunk boundary) and cuts the connection. The check fails
 * (unknown: the engine checks again); the next check asks the session (`Content-Range: bytes *\/N`),
 * which answers 308 with `Range: bytes=0-<last byte>`, and the upload goes on from the byte after it,
 * never from the start: the bytes on the wire are the file once and less than a chunk again, and the
 * video's SHA-256 at the stand-in is the file's. The file is read from disk a chunk at a time: the
 * process's memory grows far less than the file (under 30 MiB, the upload bar of media-memory.test.ts),
 * the stand-in (in this process) keeping only a digest of what it receives.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import type { CheckOutcome, DeliveryJob, Publisher } from '../../src/ports.js';
import { CHUNK_BYTES } from '../../src/publish/connectors/youtube/youtube-upload.js';
import { growthDuring, MIB, reportGrowth } from '../support/memory-growth.js';
import { startYouTubeServer, type YouTubeServer } from '../support/youtube-server.js';
import { openAgainst, stepped, videoFile, videoJob, youtubeContext } from '../support/youtube-steps.js';

const LIMIT_BYTES = 30 * MIB;
const SIZE = 100 * MIB;
/** Halfway, and on no 256 KiB boundary. */
const BREAK_AT = 50 * MIB + 123_457;

let server: YouTubeServer | undefined;
let publisher: Publisher | undefined;
afterEach(async () => {
  await publisher?.close?.();
  await server?.close();
});

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const stateOf = (outcome: CheckOutcome) => (outcome as { state: DeliveryJob['state'] }).state;

it('resumes a 100 MiB upload broken halfway from the byte the session reports, in bounded memory', async () => {
  server = await startYouTubeServer();
  const records = [videoFile('med_warm', 16 * MIB), videoFile('med_big', SIZE)];
  const logged: string[] = [];
  publisher = await openAgainst(
    server,
    youtubeContext(records, { timeoutMs: 120_000, log: (line) => logged.push(line) }),
  );
  // Warm up: the first upload loads and compiles what every later one uses.
  expect(await stepped(publisher).deliver({ ...videoJob('med_warm'), deliveryId: 9 })).toMatchObject({
    ok: true,
  });

  const job = videoJob('med_big');
  const opened = await publisher.deliver(job);
  expect(opened).toMatchObject({ ok: 'pending', state: { step: 'upload' } });
  server.uploads.breakAt = BREAK_AT;
  const firstPut = server.uploads.puts.length;
  let broken: CheckOutcome | undefined;
  let resumed: CheckOutcome | undefined;
  const growth = await growthDuring(async () => {
    broken = await publisher!.check!({ ...job, state: stateOf(opened) });
    resumed = await publisher!.check!({ ...job, state: stateOf(opened) });
  });
  reportGrowth('YouTube upload broken and resumed', SIZE, growth);

  // The break: the check fails and is checked again by the engine; the session kept BREAK_AT bytes.
  expect(broken).toMatchObject({ ok: false, kind: 'unknown' });
  const session = [...server.uploads.sessions.values()].find((item) => item.total === SIZE)!;
  const puts = server.uploads.puts.slice(firstPut);
  const probes = puts.filter((put) => put.range === `bytes */${SIZE}`);
  expect(probes).toHaveLength(2);
  // The second probe found BREAK_AT bytes, and the next chunk started at that byte.
  const secondProbe = puts.indexOf(probes[1]!);
  expect(puts[secondProbe]!.had).toBe(BREAK_AT);
  expect(puts[secondProbe + 1]!.range).toMatch(new RegExp(`^bytes ${BREAK_AT}-\\d+/${SIZE}$`));
  expect(logged.join('\n')).toContain(`YouTube has ${BREAK_AT} of ${SIZE} bytes`);
  // Never started over: the file once on the wire, and less than a chunk of it again.
  const wire = puts.reduce((sum, put) => sum + put.bytes, 0);
  expect(wire).toBeGreaterThanOrEqual(SIZE);
  expect(wire).toBeLessThan(SIZE + CHUNK_BYTES);
  // The video is complete and is the file.
  expect(resumed).toMatchObject({ ok: 'pending', reason: 'YouTube is processing the video.' });
  expect(session.received).toBe(SIZE);
  expect(session.sha256).toBe(await sha256Of(records[1]!.path));
  expect(server.kit.requestsTo('/upload/youtube/v3/videos', 'POST')).toHaveLength(2);

  expect(growth.rss).toBeLessThan(LIMIT_BYTES);
  expect(growth.heap).toBeLessThan(LIMIT_BYTES);
}, 180_000);
