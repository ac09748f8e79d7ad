/**
 * `connect <platform>` and `disconnect`: the only way a secret enters the program (the MCP and REST
 * surfaces never take or show one, since a conversation reaches the model's provider). The account is
 * verified against its platform first; only then does it become a channel of the brand. Questions and
 * progress go to stderr; the channel, as JSON, to stdout.
 */
import { type Config, ConfigError, type ConnectRequest } from '../config.js';
import { type LocalRuntime, openLocalRuntime } from '../local-runtime.js';
import { chooseIdentity, IdentityChoiceNeeded, identitiesOf } from '../oauth/sign-in.js';
import type { VerifiedConnection } from '../publish/connector.js';
import { type OAuthIdentity, type OAuthTokens, signInOf } from '../publish/connectors/module.js';
import { CONNECTED_PLATFORMS, connectorModule } from '../publish/connectors/registry.js';
import {
  connectChannel,
  disconnectChannel,
  findBrandId,
  presentChannelDetail,
} from '../service/connections.js';
import { ask } from './prompt.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

export async function runConnect(config: Config, version: string): Promise<void> {
  const request = config.connect!;
  const runtime = await openLocalRuntime(config);
  try {
    const brandId = await findBrandId(runtime.store, request.brand);
    if (brandId === undefined) throw new ConfigError(brandNotFound(request.brand));
    const collectionIds: number[] = [];
    for (const collection of request.collections) {
      collectionIds.push(await findCollectionId(runtime, brandId, collection));
    }
    const type = CONNECTED_PLATFORMS[request.platform];
    if (request.name !== undefined) {
      const named = await runtime.store.listChannels(brandId, { limit: 10_000, offset: 0 });
      const clash = named.find((channel) => channel.name === request.name && channel.type !== type);
      if (clash) {
        throw new ConfigError(
          `The channel "${request.name}" is a ${clash.type} channel, not ${type}: choose another --name.`,
        );
      }
    }
    const verified = await verify(
      config,
      request,
      `social-publisher-mcp/${version}`,
      config.platformTimeoutMs,
    );
    const { secret, ...connection } = verified;
    const channelId = await connectChannel(runtime.store, runtime.secrets, runtime.clock, {
      brandId,
      type,
      name: request.name,
      connection,
      secret: { value: secret },
      collectionIds,
    });
    const channel = (await runtime.store.findChannel(brandId, channelId))!;
    say(
      `Connected ${verified.account} as the channel "${channel.name}" (id ${channelId}) of brand ${brandId}.`,
    );
    const detail = await presentChannelDetail(runtime.store, channel, config.publisher.kind);
    process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
  } finally {
    await runtime.close();
  }
}

export async function runDisconnect(config: Config): Promise<void> {
  const { brand, channel: wanted } = config.disconnect!;
  const runtime = await openLocalRuntime(config);
  try {
    const brandId = await findBrandId(runtime.store, brand);
    if (brandId === undefined) throw new ConfigError(brandNotFound(brand));
    const channels = await runtime.store.listChannels(brandId, { limit: 10_000, offset: 0 });
    const channel =
      channels.find((c) => c.name === wanted) ??
      (/^\d+$/.test(wanted) ? channels.find((c) => c.id === Number(wanted)) : undefined);
    if (!channel) {
      throw new ConfigError(
        `Brand ${brandId} has no channel "${wanted}". Its channels: ${channels.map((c) => `${c.id} "${c.name}"`).join(', ')}.`,
      );
    }
    const erased = await disconnectChannel(runtime.store, runtime.clock, channel);
    say(
      erased
        ? `Disconnected "${channel.name}": it is INACTIVE and its secrets are erased.`
        : `"${channel.name}" had no connected account; it is INACTIVE now.`,
    );
    const detail = await presentChannelDetail(
      runtime.store,
      (await runtime.store.findChannel(brandId, channel.id))!,
      config.publisher.kind,
    );
    process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
  } finally {
    await runtime.close();
  }
}

function brandNotFound(brand: string): string {
  return `No brand "${brand}" in this store: give a brand's exact title or its id (list_brands shows them), or import a workspace file that declares it.`;
}

async function findCollectionId(runtime: LocalRuntime, brandId: number, wanted: string): Promise<number> {
  const collections = await runtime.store.listCollections(brandId, { limit: 10_000, offset: 0 });
  const found =
    collections.find((c) => c.title === wanted) ??
    (/^\d+$/.test(wanted) ? collections.find((c) => c.id === Number(wanted)) : undefined);
  if (!found) {
    throw new ConfigError(
      `Brand ${brandId} has no collection "${wanted}". Its collections: ${collections.map((c) => `${c.id} "${c.title}"`).join(', ') || 'none'}.`,
    );
  }
  return found.id;
}

/**
 * Checks the credentials against the platform with the platform's module; what comes back is what is
 * stored. The secret comes from the environment variable the secret flag names, else from an OAuth
 * sign-in where the module has one, else from the terminal.
 */
async function verify(
  config: Config,
  request: ConnectRequest,
  userAgent: string,
  timeoutMs: number,
): Promise<VerifiedConnection> {
  const module = connectorModule(request.platform);
  const http = { userAgent, timeoutMs };
  try {
    if (module.app && module.oauth) return await signInWithApp(config, request, http);
    let secret = request.secret;
    let tokens: OAuthTokens | undefined;
    if (secret === undefined && module.oauth) {
      const { signIn } = await import('./oauth-sign-in.js');
      tokens = await signIn(
        await module.oauth(),
        { authRoot: request.endpoint, paste: request.redirect === 'paste' },
        http,
      );
      secret = tokens.accessToken;
    }
    secret ??= await ask(module.connect.secretPrompt?.(request.account) ?? 'Secret: ', { secret: true });
    return await module.connect.verify({
      endpoint: request.endpoint,
      ...(request.account === undefined ? {} : { account: request.account }),
      secret,
      ...(tokens ? { tokens } : {}),
      ...http,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (error instanceof IdentityChoiceNeeded) {
      // Not a terminal: the choices, and exit 2 (product.md).
      const choose = new ConfigError(error.message);
      choose.exitCode = 2;
      throw choose;
    }
    // The connectors' verify errors say what to fix and never hold the secret.
    throw new ConfigError(`Not connected: ${(error as Error).message}`);
  }
}

/**
 * `connect <oauth-platform>`: the operator's app signs the user in, the identity to post as is chosen
 * (`--account`, else the only one, else asked on a terminal; exit 2 with the list otherwise), and the
 * module verifies it. A connection made with `--auth-root` keeps it, for its token refreshes.
 */
async function signInWithApp(
  config: Config,
  request: ConnectRequest,
  http: { userAgent: string; timeoutMs: number },
): Promise<VerifiedConnection> {
  const module = connectorModule(request.platform);
  const way = signInOf(module, request.login);
  const app = way.app!;
  const authRoot = request.authRoot ?? app.authRoot;
  const redirectUri = request.redirectUri!;
  const client = config.oauthApps.require(module.displayName, app, redirectUri);
  const hooks = await way.oauth!();
  const { signIn } = await import('./oauth-sign-in.js');
  const tokens = await signIn(
    hooks,
    { authRoot, client, redirectUri, paste: request.redirect === 'paste', account: request.account },
    http,
  );
  const identities = await identitiesOf(
    hooks,
    { apiRoot: request.endpoint, accessToken: tokens.accessToken },
    http,
  );
  let identity: OAuthIdentity | undefined;
  try {
    identity = chooseIdentity(identities, request.account);
  } catch (error) {
    if (!(error instanceof IdentityChoiceNeeded) || !process.stdin.isTTY) throw error;
    say(error.message);
    identity = chooseIdentity(identities, await ask('Post as (id or name): '));
  }
  const verified = await module.connect.verify({
    endpoint: request.endpoint,
    ...(identity ? { account: identity.id } : request.account ? { account: request.account } : {}),
    secret: tokens.accessToken,
    tokens,
    ...(request.login === undefined ? {} : { login: request.login }),
    ...http,
  });
  if (authRoot === app.authRoot) return verified;
  return { ...verified, settings: { ...verified.settings, authRoot } };
}
