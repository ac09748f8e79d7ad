/** The sign-ins a process completes (main.ts): `serve`'s, and stdio's through a loopback listener. */
import type { Config } from '../config.js';
import type { PlatformMedia } from '../domain/delivery.js';
import type { LocalRuntime } from '../local-runtime.js';
import { MEDIA_ADDRESS_TTL_MS, MediaAddresses } from '../media/public-addresses.js';
import { LoopbackCallback } from './loopback-callback.js';
import { ServerSignIns } from './server-sign-in.js';

/**
 * The sign-ins this process completes: `serve`'s on its public URL's /oauth/callback, stdio's on a
 * loopback listener of the redirect URI, started with the first sign-in.
 */
export async function processSignIns(
  config: Config,
  runtime: LocalRuntime,
  version: string,
  mode: 'serve' | 'stdio' = 'stdio',
): Promise<ServerSignIns> {
  const loopback = mode === 'stdio';
  const redirectUri = loopback ? config.oauthRedirectUri : `${config.publicUrl}/oauth/callback`;
  const callback: LoopbackCallback | undefined = loopback
    ? new LoopbackCallback(redirectUri, () => signIns)
    : undefined;
  const signIns: ServerSignIns = new ServerSignIns({
    store: runtime.store,
    secrets: runtime.secrets,
    clock: runtime.clock,
    apps: config.oauthApps,
    redirectUri,
    http: { userAgent: `social-publisher-mcp/${version}`, timeoutMs: config.platformTimeoutMs },
    defaultConnector: config.publisher.kind,
    ...(callback ? { beforeStart: () => callback.ensure() } : {}),
  });
  return signIns;
}

/**
 * What `serve` offers behind SOCIAL_PUBLISHER_PUBLIC_URL: sign-ins completed on /oauth/callback, and
 * uploaded media by signed address on /media/<token> (for platforms that fetch media by URL; not with
 * object storage, whose own presigned addresses serve), the public host answered beside the loopback
 * names. Nothing without a public URL.
 */
export async function publicServing(config: Config, runtime: LocalRuntime, version: string) {
  if (!config.publicUrl) return { engine: {}, http: {} };
  // Object storage hands out addresses of its own (presigned): the engine takes them from the store.
  if (runtime.media.presign) {
    const signIns = await processSignIns(config, runtime, version, 'serve');
    return { engine: {}, http: { signIns, publicHost: new URL(config.publicUrl).hostname } };
  }
  const addresses = new MediaAddresses(runtime.secrets.derive('media addresses'), config.publicUrl);
  const publicMediaUrl = async (brandId: number, media: PlatformMedia) =>
    media.id ? addresses.address(brandId, media.id, runtime.clock.now() + MEDIA_ADDRESS_TTL_MS) : media.url;
  return {
    engine: { publicMediaUrl },
    http: {
      signIns: await processSignIns(config, runtime, version, 'serve'),
      mediaAddresses: addresses,
      publicHost: new URL(config.publicUrl).hostname,
    },
  };
}
