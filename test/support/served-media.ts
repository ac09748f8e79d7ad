/**
 * Media files on a loopback address, for the stand-ins of platforms that fetch media by URL (Meta's):
 * `/photo…` is a JPEG, `/video…` an MP4 (a few bytes each: the stand-ins check the type and that
 * something came), anything else 404. Each request is counted by path. And `download`, the fetching
 * side: what Meta's crawler does with an address it is given.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
export const MP4 = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');

export async function servedImage() {
  const fetched: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    fetched.push(path);
    const file = path.startsWith('/photo') ? JPEG : path.startsWith('/video') ? MP4 : undefined;
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
      return;
    }
    res.writeHead(200, {
      'content-type': file === JPEG ? 'image/jpeg' : 'video/mp4',
      'content-length': file.length,
    });
    res.end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fetched,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Downloads `url` as Meta's crawler would: the bytes, or null when it cannot (or the type is wrong). */
export async function download(url: string, video: boolean): Promise<number | null> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    if (!answer.ok) return null;
    const type = answer.headers.get('content-type') ?? '';
    const bytes = (await answer.arrayBuffer()).byteLength;
    if (bytes === 0 || !type.startsWith(video ? 'video/' : 'image/')) return null;
    return bytes;
  } catch {
    return null;
  }
}
