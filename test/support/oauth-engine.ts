/**
 * A publishing engine in process over one channel connected to an OAuth platform's stand-in: a real
 * store (test runtime, fake clock at the wall clock's time), brand "Acme" with the channel alone in a
 * collection, its secret (the sign-in's tokens) read from the name the workspace gives. `scheduler()`
 * makes another scheduler on the same store: another process, as far as the engine can tell; its
 * options give its connectors a deadline per request (`timeoutMs`, default 500), the public address
 * of an uploaded file (`publicMediaUrl`, as serve signs one) and the engine's claim lease (`leaseMs`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlatformMedia } from '../../src/domain/delivery.js';
import type { ChannelType } from '../../src/domain/schemas.js';
import { ChannelConnectors } from '../../src/publish/channel-connectors.js';
import type { VerifiedConnection } from '../../src/publish/connector.js';
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

export interface EngineProcess {
  timeoutMs?: number;
  publicMediaUrl?: (brandId: number, media: PlatformMedia) => Promise<string | undefined>;
  leaseMs?: number;
  /** The operator's app (the stand-in's), for a process that refreshes tokens. */
  app?: { clientId: string; clientSecret: string };
  /** What the engine logs. */
  log?: (message: string) => void;
}

/**
 * Stores a verified connection on the channel as `connect` does: its secret sealed for the channel,
 * `settings` (the `--auth-root` kept for its refreshes) over the verified ones.
 */
export async function saveConnection(
  rt: TestRuntime,
  channelId: number,
  verified: VerifiedConnection,
  settings: Record<string, unknown>,
): Promise<void> {
  const { secret, ...connection } = verified;
  await rt.runtime.store.connections.save(
    channelId,
    {
      ...connection,
      settings: { ...connection.settings, ...settings },
      sealedSecret: rt.runtime.secrets.seal(secret, channelId),
      secretEnv: null,
    },
    rt.clock.now(),
  );
}

/** A runtime for openOAuthEngine, opened first so that the stand-in can share its clock. */
export const openEngineRuntime = () => openTestRuntime({ demo: false, now: Date.now() });

/**
 * `secret`: the channel's stored secret (the sign-in's tokens, as `tokensSecret` makes them), or how to
 * read it when a scheduler is made (a stand-in started again issues other tokens).
 */
export async function openOAuthEngine(
  rt: TestRuntime,
  channel: OAuthChannel,
  secret: string | (() => string),
) {
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
  const made: ChannelConnectors[] = [];
  const scheduler = ({ timeoutMs = 500, publicMediaUrl, leaseMs, app, log }: EngineProcess = {}) => {
    const fallback = new SandboxPublisher(store.sandbox, rt.clock);
    const stored = typeof secret === 'string' ? secret : secret();
    const connectors = new ChannelConnectors({
      store,
      secrets,
      fallback,
      readEnv: (variable) => (variable === 'ACME_SECRET' ? stored : undefined),
      ...(app ? { oauthApps: { get: () => app } } : {}),
      context: {
        loadMedia: mediaLoader(store, undefined, undefined),
        ...(publicMediaUrl ? { publicMediaUrl } : {}),
        clock: rt.clock,
        log: () => {},
        timeoutMs,
        userAgent: 'test',
      },
    });
    made.push(connectors);
    return new Scheduler({
      store,
      clock: rt.clock,
      publisher: fallback,
      connectors,
      concurrency: 1,
      ...(leaseMs ? { leaseMs } : {}),
      ...(log ? { log } : {}),
    });
  };
  const brandId = (await store.findBrandIdByTitle('Acme'))!;
  const [collection] = await store.listCollections(brandId, { limit: 10, offset: 0 });
  const collectionId = collection!.id;
  const user = (await store.onlyUser())!;
  const service = new LocalPublishingService(rt.runtime, user);
  /** Creates a post in the channel's collection; returns a reader of the post as it is now. */
  const publish = async (payload: Record<string, unknown>) => {
    const { id } = await service.createPost({ brandId, collectionId, ...payload });
    return () => service.getPost({ brandId, postId: id! });
  };
  /** Uploads `bytes` to the brand as the file `name`: its media id. */
  const upload = async (fileName: string, bytes: Uint8Array) => {
    const path = join(rt.dataDir, fileName);
    writeFileSync(path, bytes);
    const service = new LocalPublishingService({ ...rt.runtime, allowLocalPaths: true }, user);
    return (await service.uploadMedia({ brandId, path })).id;
  };
  /** Closes the connectors of every scheduler made (their open connections to the stand-in). */
  const close = async () => {
    await Promise.all(made.splice(0).map((connectors) => connectors.close()));
  };
  return { scheduler, publish, upload, service, brandId, collectionId, close };
}
