/**
 * Peak RSS of a 100 MB upload: a real `serve` process receives a streamed multipart upload of 100 MiB
 * on POST /v1/brands/1/media. Its RSS is read from /proc before (after a small warm-up upload), its
 * peak (VmHWM, reset just before, and VmRSS polled every 5 ms) during; the growth is peak − before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { MAIN, mib, procStatusKb, resetPeakRss, sampleRss, serverEnv, sleep, tempDir } from './lib/proc.js';
import type { Figure } from './lib/report.js';

const MIB = 1024 * 1024;
const CHUNK = 64 * 1024;
/** An MP4 file type box: the type sniffer reads video/mp4. */
const MP4_HEAD = Buffer.from('000000186674797069736f6d0000020069736f6d6d703432', 'hex');

interface Served {
  child: ChildProcess;
  url: string;
  apiKey: string;
}

/** Starts `serve` on a free port and reads its URL and the demo user's new API key from its log. */
function startServe(dataDir: string): Promise<Served> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0'], {
    env: serverEnv(dataDir),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let log = '';
    let apiKey: string | undefined;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      apiKey ??= /API key of [^:]+: (spk_\S+)/.exec(log)?.[1];
      const url = /listening on (http:\/\/\S+):/.exec(log)?.[1];
      if (url && apiKey) resolve({ child, url, apiKey });
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${log}`)));
  });
}

/** Streams a multipart body holding one `bytes`-long MP4 file, honouring backpressure. */
function upload(served: Served, bytes: number): Promise<{ status: number; body: string }> {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="bench.mp4"\r\n` +
      'Content-Type: video/mp4\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const filler = randomBytes(CHUNK);
  const url = new URL(`${served.url}/v1/brands/1/media`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${served.apiKey}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + bytes + tail.length,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    const write = async () => {
      req.write(head);
      // A distinct first chunk per upload: the same bytes twice would be stored once.
      const first = Buffer.concat([MP4_HEAD, randomBytes(CHUNK - MP4_HEAD.length)]);
      let sent = 0;
      while (sent < bytes) {
        const chunk = (sent === 0 ? first : filler).subarray(0, Math.min(CHUNK, bytes - sent));
        sent += chunk.length;
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
      req.end(tail);
    };
    write().catch(reject);
  });
}

export async function uploadRss(options: { megabytes?: number } = {}): Promise<Figure[]> {
  const bytes = (options.megabytes ?? 100) * MIB;
  const served = await startServe(tempDir());
  const pid = served.child.pid!;
  try {
    const warm = await upload(served, MIB);
    if (warm.status !== 201) throw new Error(`warm-up upload: ${warm.status} ${warm.body}`);
    await sleep(1_000);
    const beforeKb = procStatusKb(pid, 'VmRSS');
    const hwmReset = resetPeakRss(pid);
    const sampler = sampleRss(pid);
    const started = performance.now();
    const result = await upload(served, bytes);
    const seconds = (performance.now() - started) / 1000;
    const polledPeakKb = sampler.stop();
    const hwmKb = procStatusKb(pid, 'VmHWM');
    if (result.status !== 201) throw new Error(`upload: ${result.status} ${result.body.slice(0, 300)}`);
    const size = (JSON.parse(result.body) as { data: { size: number } }).data.size;
    if (size !== bytes) throw new Error(`the server stored ${size} bytes of ${bytes}`);
    await sleep(1_000);
    const afterKb = procStatusKb(pid, 'VmRSS');
    // Without a reset, VmHWM may be the start-up peak: only the polled peak then counts.
    const peakKb = hwmReset ? Math.max(hwmKb, polledPeakKb) : polledPeakKb;
    const growth = mib(peakKb - beforeKb);
    return [
      {
        name: `upload of ${bytes / MIB} MiB (serve, multipart): peak RSS growth`,
        value: growth,
        unit: 'MiB',
        bar: '≤ 64 MB',
        ratio: growth / 64,
        pass: growth <= 64,
        details: {
          beforeMiB: mib(beforeKb),
          peakMiB: mib(peakKb),
          polledPeakMiB: mib(polledPeakKb),
          hwmMiB: hwmReset ? mib(hwmKb) : null,
          afterMiB: mib(afterKb),
          seconds,
          mibPerSecond: bytes / MIB / seconds,
        },
      },
    ];
  } finally {
    served.child.kill('SIGTERM');
    await new Promise((resolve) => served.child.once('exit', resolve));
  }
}
