/** The sign-ins a process completes (main.ts): `serve`'s, and stdio's through a loopback listener. */
import type { Config } from '../config.js';
import type { LocalRuntime } from '../local-runtime.js';
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
