/**
 * An agent using the MCP SDK client to run the whole flow against the server over stdio:
 * list brands → pick a collection → upload an image → schedule a post → list the posts back.
 *
 *   npm run build && npx -y tsx examples/agent.ts
 *
 * SOCIAL_PUBLISHER_DATA_DIR chooses the store (default: a fresh temporary directory, with the demo).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Body<T> = { status: 'success'; data: T };

/** A valid 2×2 PNG, so the example needs no file of its own. */
function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, tail]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.writeUInt8(8, 8);
  header.writeUInt8(2, 9);
  const pixels = Buffer.from([0, 200, 120, 40, 200, 120, 40, 0, 90, 60, 30, 90, 60, 30]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function main(): Promise<void> {
  const dataDir =
    process.env.SOCIAL_PUBLISHER_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'social-publisher-agent-'));
  const server = join(import.meta.dirname, '..', 'dist', 'main.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [server],
    env: { ...(process.env as Record<string, string>), SOCIAL_PUBLISHER_DATA_DIR: dataDir },
  });
  const client = new Client({ name: 'example-agent', version: '1.0.0' });
  await client.connect(transport);

  async function call<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    if (result.isError) throw new Error(`${name} failed:\n${text}`);
    console.log(`→ ${name}: ${text.split('\n')[0]}`);
    return (result.structuredContent as Body<T>).data;
  }

  try {
    const brands = await call<Array<{ id: number; title: string; timezone: string }>>('list_brands');
    const brand = brands[0]!;
    const collections = await call<Array<{ id: number; title: string }>>('list_collections', {
      brandId: brand.id,
    });
    const visual = collections.find((collection) => collection.title === 'Visual') ?? collections[0]!;

    const image = join(dataDir, 'roast.png');
    writeFileSync(image, tinyPng());
    const media = await call<{ id: string }>('upload_media', { brandId: brand.id, path: image });

    // Next Tuesday at 09:00 in the brand's own timezone: scheduledAt is a local wall-clock time.
    const day = new Date();
    day.setUTCDate(day.getUTCDate() + ((9 - day.getUTCDay()) % 7 || 7));
    const scheduledAt = `${day.toISOString().slice(0, 10)} 09:00:00`;
    const created = await call<{ id: number }>('create_post', {
      brandId: brand.id,
      collectionId: visual.id,
      publishMode: 'SCHEDULE',
      scheduledAt,
      caption: 'Fresh roast, out of the drum this morning.',
      media: [{ id: media.id }],
    });

    const posts = await call<Array<{ id: number; status: string; scheduledAt: string; timezone: string }>>(
      'list_posts',
      { brandId: brand.id, status: 'scheduled' },
    );
    const listed = posts.find((post) => post.id === created.id);
    if (!listed) throw new Error(`post ${created.id} is not in list_posts`);
    console.log(`Scheduled post ${listed.id}: ${listed.status} for ${listed.scheduledAt} ${listed.timezone}`);
  } finally {
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
