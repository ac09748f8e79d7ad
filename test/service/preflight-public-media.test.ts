/**
 * Pre-flight of a platform that fetches media from a public address (Threads): a post with an uploaded
 * file to a connected Threads channel is told, for that channel, that this server gives uploaded files
 * no public address and which setting does; a server that hands them out (`serve` with a public URL)
 * is not; a file given as a URL needs none.
 */
import { afterEach, expect, it } from 'vitest';
import { PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { PNG_1X1 } from '../mcp/harness.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

const NORTHWIND = 1;
const CONVERSATION = 3; // X, Threads, Mastodon, Bluesky, LinkedIn, Telegram

let rt: TestRuntime;
afterEach(async () => {
  await rt.close();
});

async function connectThreads(): Promise<number> {
  const { store, secrets } = rt.runtime;
  const channels = await store.listChannels(NORTHWIND, { limit: 100, offset: 0 });
  const threads = channels.find((channel) => channel.type === 'Threads')!;
  await store.connections.save(
    threads.id,
    {
      kind: 'threads',
      account: '@acme',
      accountId: '1789',
      endpoint: 'https://graph.threads.net',
      profileUrl: null,
      settings: {},
      capabilities: PLATFORM_CAPABILITIES.Threads,
      sealedSecret: secrets.seal(JSON.stringify({ accessToken: 'token' }), threads.id),
      secretEnv: null,
    },
    rt.clock.now(),
  );
  return threads.id;
}

it('says, for a Threads channel, that an uploaded file needs SOCIAL_PUBLISHER_PUBLIC_URL, unless the server has one', async () => {
  rt = await openTestRuntime();
  const threadsId = await connectThreads();
  const media = await rt.service.uploadMedia({
    brandId: NORTHWIND,
    base64: PNG_1X1.toString('base64'),
    filename: 'pixel.png',
  });
  const post = (service: LocalPublishingService, element: Record<string, unknown>) =>
    service.createPost({
      brandId: NORTHWIND,
      collectionId: CONVERSATION,
      publishMode: 'DRAFT',
      caption: 'Fresh roast',
      media: [element],
      dryRun: true,
    });
  const user = (await rt.runtime.store.onlyUser()) ?? (await rt.runtime.store.listUsers())[0]!;
  const withoutPublicUrl = new LocalPublishingService({ ...rt.runtime }, user);
  const warned = (await post(withoutPublicUrl, { id: media.id })).warnings ?? [];
  const threads = warned.filter((warning) => warning.channelId === threadsId);
  expect(threads).toContainEqual(
    expect.objectContaining({
      outcome: 'fail',
      message: expect.stringContaining('SOCIAL_PUBLISHER_PUBLIC_URL'),
    }),
  );
  // Only the channel that fetches by URL is told.
  expect(warned.filter((warning) => warning.message.includes('SOCIAL_PUBLISHER_PUBLIC_URL'))).toHaveLength(1);
  // A server with a public URL (serve) hands the file an address: nothing to say.
  const withPublicUrl = new LocalPublishingService({ ...rt.runtime, publicMedia: true }, user);
  const served = (await post(withPublicUrl, { id: media.id })).warnings ?? [];
  expect(served.filter((warning) => warning.message.includes('SOCIAL_PUBLISHER_PUBLIC_URL'))).toEqual([]);
  // A file given as a URL is fetched from there.
  const byUrl = (await post(withoutPublicUrl, { url: 'https://cdn.example.com/roast.png' })).warnings ?? [];
  expect(byUrl.filter((warning) => warning.message.includes('SOCIAL_PUBLISHER_PUBLIC_URL'))).toEqual([]);
});
