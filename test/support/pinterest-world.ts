/**
 * The Pinterest connector against its stand-in, for the connector's own tests: a board signed in, the
 * post's media as files counted as they are read, an image host the stand-in downloads from, and the
 * clock both share.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlatformContent, PlatformMedia } from '../../src/domain/delivery.js';
import type { DeliveryJob, Publisher } from '../../src/ports.js';
import type { ConnectorContext, MediaSource, VerifiedConnection } from '../../src/publish/connector.js';
import { verifyPinterest } from '../../src/publish/connectors/pinterest/pinterest-account.js';
import { openPinterest } from '../../src/publish/connectors/pinterest/pinterest-connector.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { contractJob } from './connector-contract.js';
import {
  type PinterestServer,
  type PinterestServerOptions,
  startPinterestServer,
} from './pinterest-server.js';

export const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

export type CountedFile = MediaSource & { ranges: [number, number][]; blobs: number; released: number };

export interface PinterestWorld {
  server: PinterestServer;
  /** The image host's origin: `${images}/photo.png` serves a PNG. */
  images: string;
  clock: { nowMs: number };
  files: Map<string, CountedFile>;
  saved: string[];
  /** A media element of `size` bytes (the PNG's bytes first), counted as it is read. */
  file(id: string, type: string, size?: number): PlatformMedia;
  verified(account?: string): Promise<VerifiedConnection>;
  open(connection?: VerifiedConnection, extra?: Partial<ConnectorContext>): Promise<Publisher>;
  close(): Promise<void>;
}

export function pinJob(content: Partial<PlatformContent>, state: DeliveryJob['state'] = {}): DeliveryJob {
  const base = contractJob('Pinterest', 'Slow-roasted tomatoes, in four steps');
  return { ...base, content: { ...base.content, ...content }, state };
}

export async function startPinterestWorld(options: PinterestServerOptions = {}): Promise<PinterestWorld> {
  const clock = { nowMs: Date.now() };
  const server = await startPinterestServer({ now: () => clock.nowMs, ...options });
  const host: Server = createServer((req, res) => {
    if (req.url?.startsWith('/photo')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      res.end(PNG);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const files = new Map<string, CountedFile>();
  const saved: string[] = [];
  const publishers: Publisher[] = [];
  const tokens = server.signedIn();
  const world: PinterestWorld = {
    server,
    images: `http://127.0.0.1:${(host.address() as AddressInfo).port}`,
    clock,
    files,
    saved,
    file(id, type, size = PNG.length) {
      const bytes = new Uint8Array(size).fill(7);
      bytes.set(PNG.subarray(0, Math.min(size, PNG.length)));
      const source = mediaFromBytes(bytes, type, `${id}.${type.split('/')[1]}`);
      const counted: CountedFile = { ...source, ranges: [], blobs: 0, released: 0 };
      counted.range = (start, end) => {
        counted.ranges.push([start, end]);
        return source.range(start, end);
      };
      counted.blob = () => {
        counted.blobs++;
        return source.blob();
      };
      counted.release = async () => {
        counted.released++;
      };
      files.set(id, counted);
      return { id, type };
    },
    verified: (account) =>
      verifyPinterest({
        endpoint: server.url,
        secret: tokens.accessToken,
        tokens: { ...tokens, expiresAtMs: Date.now() + 30 * 86_400_000 },
        ...(account === undefined ? {} : { account }),
        userAgent: 'pinterest-test',
        timeoutMs: 5_000,
      }),
    async open(connection, extra = {}) {
      const made = connection ?? (await world.verified());
      // As `connect --auth-root` keeps it: the token endpoint is the stand-in's.
      const settings = { authRoot: server.url, ...made.settings };
      const publisher = openPinterest(
        { ...made, settings, channelId: 1 },
        {
          loadMedia: async (_brand, media) => {
            const found = files.get(media.id ?? '');
            if (!found) throw new Error(`No file ${media.id} in the test.`);
            return found;
          },
          saveSecret: async (secret) => {
            saved.push(secret);
          },
          clock: { now: () => clock.nowMs },
          log: () => {},
          timeoutMs: 5_000,
          userAgent: 'pinterest-test',
          ...extra,
        },
      );
      publishers.push(publisher);
      return publisher;
    },
    async close() {
      for (const publisher of publishers) await publisher.close?.();
      await new Promise((resolve) => host.close(resolve));
      await server.close();
    },
  };
  return world;
}
