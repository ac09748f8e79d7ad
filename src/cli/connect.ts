/**
 * `connect <platform>` and `disconnect`: the only way a secret enters the program (the MCP and REST
 * surfaces never take or show one, since a conversation reaches the model's provider). The account is
 * verified against its platform first; only then does it become a channel of the brand. Questions and
 * progress go to stderr; the channel, as JSON, to stdout.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { type Config, ConfigError, type ConnectRequest } from '../config.js';
import { type LocalRuntime, openLocalRuntime } from '../local-runtime.js';
import { CONNECTED_PLATFORMS, type VerifiedConnection } from '../publish/connector.js';
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
    const verified = await verify(request, `social-publisher-mcp/${version}`, config.platformTimeoutMs);
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

/** Checks the credentials against the platform; what comes back is what is stored. */
async function verify(
  request: ConnectRequest,
  userAgent: string,
  timeoutMs: number,
): Promise<VerifiedConnection> {
  const http = { userAgent, timeoutMs };
  try {
    switch (request.platform) {
      case 'mastodon': {
        const { verifyMastodon } = await import('../publish/connectors/mastodon/mastodon-connector.js');
        const token = request.secret ?? (await mastodonSignIn(request, http));
        return await verifyMastodon({ instance: request.endpoint, token, ...http });
      }
      case 'bluesky': {
        const { verifyBluesky } = await import('../publish/connectors/bluesky/bluesky-connector.js');
        const password =
          request.secret ??
          (await ask(
            `App password of ${request.account} (Settings → Privacy and security → App passwords): `,
            {
              secret: true,
            },
          ));
        return await verifyBluesky({
          service: request.endpoint,
          handle: request.account!,
          password,
          ...http,
        });
      }
      case 'telegram': {
        const { verifyTelegram } = await import('../publish/connectors/telegram/telegram-connector.js');
        const token = request.secret ?? (await ask('Bot token from @BotFather: ', { secret: true }));
        return await verifyTelegram({ apiRoot: request.endpoint, token, chat: request.account!, ...http });
      }
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    // The connectors' verify errors say what to fix and never hold the secret.
    throw new ConfigError(`Not connected: ${(error as Error).message}`);
  }
}

/**
 * Mastodon's sign-in: registers this program as an app on the instance, has the user authorize it in
 * a browser, and exchanges the code for a token. The code comes back to a listener on this machine's
 * loopback, or (`--paste-code`, e.g. over SSH) is shown by the instance and pasted here.
 */
async function mastodonSignIn(
  request: ConnectRequest,
  http: { userAgent: string; timeoutMs: number },
): Promise<string> {
  const { authorizeUrl, exchangeCode, OOB_REDIRECT_URI, registerApp } = await import(
    '../publish/connectors/mastodon/mastodon-oauth.js'
  );
  const instance = request.endpoint;
  const state = randomBytes(16).toString('hex');
  if (request.redirect === 'paste') {
    const app = await registerApp({ instance, redirectUri: OOB_REDIRECT_URI, ...http });
    say(
      `Open this address in a browser, sign in and authorize social-publisher-mcp:\n\n  ${authorizeUrl(app, instance, OOB_REDIRECT_URI, state)}\n`,
    );
    const code = await ask('Paste the authorization code: ', { secret: true });
    return exchangeCode({ instance, app, code, redirectUri: OOB_REDIRECT_URI, ...http });
  }
  const listener = await listenForCode(state);
  try {
    const app = await registerApp({ instance, redirectUri: listener.redirectUri, ...http });
    say(
      `Open this address in a browser, sign in and authorize social-publisher-mcp (waiting up to 10 minutes; use --paste-code if the browser is on another machine):\n\n  ${authorizeUrl(app, instance, listener.redirectUri, state)}\n`,
    );
    const code = await listener.code;
    return await exchangeCode({ instance, app, code, redirectUri: listener.redirectUri, ...http });
  } finally {
    listener.close();
  }
}

/** A one-shot listener on loopback for the OAuth redirect; only a request with our `state` counts. */
async function listenForCode(
  state: string,
): Promise<{ redirectUri: string; code: Promise<string>; close(): void }> {
  let settle: { resolve(code: string): void; reject(error: Error): void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
      res.writeHead(404).end();
      return;
    }
    const given = url.searchParams.get('code');
    const refused = url.searchParams.get('error_description') ?? url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(
      given
        ? 'Authorized: you can close this tab and go back to the terminal.'
        : `Not authorized: ${refused}`,
    );
    if (given) settle.resolve(given);
    else
      settle.reject(new Error(`The instance did not authorize the app: ${refused ?? 'no code was given'}.`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const timer = setTimeout(
    () => settle.reject(new Error('No authorization arrived within 10 minutes: run connect again.')),
    10 * 60_000,
  );
  timer.unref();
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    code,
    close: () => {
      clearTimeout(timer);
      server.close();
    },
  };
}
