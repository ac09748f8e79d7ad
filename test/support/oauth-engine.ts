/**
 * A publishing engine in process over one channel connected to an OAuth platform's stand-in: a real
 * store (test runtime, fake clock at the wall clock's time), brand "Acme" with the channel alone in a
 * collection, its secret (the sign-in's tokens) read from the name the workspace gives. `scheduler()`
 * makes another scheduler on the same store: another process, as far as the engine can tell.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChannelType } from '../../src/domain/schemas.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import type { ConnectedKind } from '../../src/publish/connectors/registry.js';
import { mediaLoader } from '../../src/publish/media-loader.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { LocalPublishingService } from '../../src/service/local-service.js';
import { openTestRuntime, type TestRuntime } from './local.js';

export interface OAuthChannel {
  name: string;
  type: ChannelType;
  connector: ConnectedKind;
  account: string;
  accountId: string;
  /** The stand-in's address. */
  instance: string;
}

/** A runtime for openOAuthEngine, opened first so that the stand-in can share its clock. */
export const openEngineRuntime = () => openTestRuntime({ demo: false, now: Date.now() });

/** `secret`: the channel's stored secret (the sign-in's tokens, as `tokensSecret` makes them). */
export async function openOAuthEngine(rt: TestRuntime, channel: OAuthChannel, secret: string) {
  const { name, type, ...connection } = channel;
  await rt.importWorkspace({
    brands: [
      {
        title: 'Acme',
        timezone: 'Europe/London',
        channels: [{ name, type, connection: { ...connection, secretEnv: 'ACME_SECRET' } }],
        collections: [{ title: type, channels: [name] }],
      },
    ],
    users: [{ name: 'Ada', timezone: 'Europe/London', apiKey: 'ada-key-0123456789', brands: ['Acme'] }],
  });
  const { store, secrets } = rt.runtime;
  const scheduler = () => {
    const fallback = new SandboxPublisher(store.sandbox, rt.clock);
    const connectors = new ChannelConnectors({
      store,
      secrets,
      fallback,
      readEnv: (variable) => (variable === 'ACME_SECRET' ? secret : undefined),
      context: {
        loadMedia: mediaLoader(store, undefined, undefined),
        clock: rt.clock,
        log: () => {},
        timeoutMs: 500,
        userAgent: 'test',
      },
    });
    return new Scheduler({ store, clock: rt.clock, publisher: fallback, connectors, concurrency: 1 });
  };
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const [collection] = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const user = (await store.onlyUser())!;
  /** Creates a post in the channel's collection; returns a reader of the post as it is now. */
  const publish = async (payload: Record<string, unknown>) => {
    const service = new LocalPublishingService(rt.runtime, user);
    const { id } = await service.createPost({ brandId, collectionId: collection!.id, ...payload });
    return () => service.getPost({ brandId, postId: id! });
  };
  /** Uploads `bytes` to the brand as the file `name`: its media id. */
  const upload = async (fileName: string, bytes: Uint8Array) => {
    const path = join(rt.dataDir, fileName);
    writeFileSync(path, bytes);
    const service = new LocalPublishingService({ ...rt.runtime, allowLocalPaths: true }, user);
    return (await service.uploadMedia({ brandId, path })).id;
  };
  return { scheduler, publish, upload };
}
