/**
 * Sign-ins that the server completes (product.md): `POST /v1/brands/{brandId}/connections` and the MCP
 * tool `connect_channel` begin one for a user of the brand and answer the authorization address; the
 * platform sends the browser back to the redirect URI (`serve`: SOCIAL_PUBLISHER_PUBLIC_URL's
 * /oauth/callback; stdio: a loopback listener), whose request `complete` turns into the channel.
 *
 * The sign-in waits in the store, so that any instance may take its callback: under the SHA-256 of its
 * `state` (128 random bits), its request (the user, the brand, the platform, the collections, the PKCE
 * verifier) sealed like a channel's secret, for 10 minutes, and taken once. No token, code or secret is
 * ever answered, logged or put in a message.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { Id } from '../domain/schemas.js';
import { validateOrThrow } from '../domain/validation.js';
import type { OAuthAppCredentials, OAuthApps } from '../oauth-apps.js';
import type { Clock, Store } from '../ports.js';
import { loginNames, type OAuthHttp, signInOf } from '../publish/connectors/module.js';
import { CONNECTOR_MODULES, type ConnectedKind, connectorModule } from '../publish/connectors/registry.js';
import type { ChannelDetail } from '../publish/connectors/schemas.js';
import { connectChannel, presentChannelDetail } from '../service/connections.js';
import type { SecretBox } from '../store/secret-box.js';
import {
  beginSignIn,
  chooseIdentity,
  codeFromRedirect,
  exchangeCode,
  IdentityChoiceNeeded,
  identitiesOf,
  identityList,
  SignInRefused,
} from './sign-in.js';

/** How long a begun sign-in waits for its callback (product.md). */
export const SIGN_IN_TTL_MS = 10 * 60_000;

/** The sealed sign-ins are sealed as a secret of "channel 0" (no channel has that id). */
const SEAL_ID = 0;

/** The platforms signed in with the operator's app. */
export const APP_KINDS = CONNECTOR_MODULES.filter((module) => 'app' in module && module.app).map(
  (module) => module.kind,
) as ConnectedKind[];

/** Every platform's sign-in names, for the platforms with several (Instagram: facebook, instagram). */
const LOGIN_NAMES = [...new Set(CONNECTOR_MODULES.flatMap((module) => loginNames(module)))];

export const ConnectionRequest = z.strictObject({
  brandId: Id.describe('Brand id, from list_brands'),
  platform: (APP_KINDS.length > 0 ? z.enum(APP_KINDS as [string, ...string[]]) : z.never()).describe(
    'Platform',
  ),
  collectionIds: z.array(Id).max(100).optional().describe('Collections to add the channel to'),
  account: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Identity to post as, if several (a LinkedIn page): id or name'),
  ...(LOGIN_NAMES.length > 0
    ? {
        login: z
          .enum(LOGIN_NAMES as [string, ...string[]])
          .optional()
          .describe(
            'Which sign-in, for a platform with several (Instagram: facebook, the default, or instagram)',
          ),
      }
    : {}),
});
export type ConnectionRequest = z.infer<typeof ConnectionRequest>;

/** What the user opens. */
export interface StartedConnection {
  authorizationUrl: string;
  expiresAt: string;
}

/** What waits in the store, sealed. */
interface SealedRequest {
  userId: string;
  platform: ConnectedKind;
  collectionIds: number[];
  account?: string;
  login?: string;
  codeVerifier?: string;
  redirectUri: string;
}

export interface ServerSignInsOptions {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  apps: OAuthApps;
  /** Where the platforms send the browser back: `<public URL>/oauth/callback`, or a loopback listener. */
  redirectUri: string;
  http: OAuthHttp;
  /** Who publishes to channels without a connection (get_channel's `connector` of those). */
  defaultConnector: 'sandbox' | 'webhook';
  /** Made ready before a sign-in begins (stdio: the loopback listener of the redirect URI). */
  beforeStart?: () => Promise<void>;
}

const hashOf = (state: string) => createHash('sha256').update(state).digest('hex');

export class ServerSignIns {
  /** The sign-ins begun by this process, by state hash: what the MCP tool waits for. */
  private readonly waiting = new Map<
    string,
    { outcome: Promise<ChannelDetail>; settle(outcome: ChannelDetail | Error): void; settled?: boolean }
  >();

  constructor(private readonly options: ServerSignInsOptions) {}

  /** Begins a sign-in for `userId`, a user of the brand; the address to open, and until when. */
  async start(userId: string, request: unknown): Promise<StartedConnection & { state: string }> {
    const { store, secrets, clock, apps, redirectUri } = this.options;
    const given = validateOrThrow(ConnectionRequest, request);
    if (!(await store.findBrandOfUser(userId, given.brandId))) throw NotFoundError.brand();
    const collectionIds = [...new Set(given.collectionIds ?? [])];
    const collections = await store.listCollections(given.brandId, { limit: 10_000, offset: 0 });
    const unknown = collectionIds.filter((id) => !collections.some((c) => c.id === id));
    if (unknown.length > 0) {
      throw ValidationError.single(
        'collectionIds',
        `Brand ${given.brandId} has no collection ${unknown.join(', ')}: list_collections shows its collections.`,
      );
    }
    const platform = given.platform as ConnectedKind;
    const module = connectorModule(platform);
    const login = (given as { login?: string }).login;
    if (login !== undefined && !loginNames(module).includes(login)) {
      throw ValidationError.single(
        'login',
        `${module.displayName} has no sign-in "${login}"${loginNames(module).length > 0 ? `: use ${loginNames(module).join(' or ')}` : ''}.`,
      );
    }
    const way = signInOf(module, login);
    let client: OAuthAppCredentials;
    try {
      client = apps.require(module.displayName, way.app!, redirectUri);
    } catch (error) {
      throw ValidationError.single('platform', (error as Error).message);
    }
    try {
      await this.options.beforeStart?.();
    } catch (error) {
      throw ValidationError.single('platform', (error as Error).message);
    }
    const hooks = await way.oauth!();
    const started = beginSignIn(hooks, {
      authRoot: client.authRoot ?? way.app!.authRoot,
      clientId: client.clientId,
      redirectUri,
      account: given.account,
    });
    const sealed: SealedRequest = {
      userId,
      platform,
      collectionIds,
      ...(given.account === undefined ? {} : { account: given.account }),
      ...(login === undefined ? {} : { login }),
      ...(started.codeVerifier ? { codeVerifier: started.codeVerifier } : {}),
      redirectUri,
    };
    const nowMs = clock.now();
    const expiresAtMs = nowMs + SIGN_IN_TTL_MS;
    await store.connections.addSignIn(
      {
        stateHash: hashOf(started.state),
        brandId: given.brandId,
        sealed: secrets.seal(JSON.stringify(sealed), SEAL_ID),
        expiresAtMs,
      },
      nowMs,
    );
    this.expect(hashOf(started.state));
    return {
      authorizationUrl: started.authorizationUrl,
      expiresAt: new Date(expiresAtMs).toISOString(),
      state: started.state,
    };
  }

  /**
   * Resolves with the channel once the sign-in of `state`, begun by this process, completes here, or
   * rejects (refused, expired, or completed by another instance: then within 10 minutes).
   */
  waitFor(state: string): Promise<ChannelDetail> {
    const waiting = this.waiting.get(hashOf(state));
    return waiting ? waiting.outcome : Promise.reject(new SignInRefused('No such sign-in was begun here.'));
  }

  /** What `waitFor` answers for a sign-in begun now: settled by `complete`, or after the sign-in's life. */
  private expect(key: string): void {
    let settle!: (outcome: ChannelDetail | Error) => void;
    const outcome = new Promise<ChannelDetail>((resolve, reject) => {
      settle = (result) => (result instanceof Error ? reject(result) : resolve(result));
    });
    outcome.catch(() => undefined);
    const timer = setTimeout(
      () =>
        this.settle(
          key,
          new SignInRefused('No approval arrived within 10 minutes: start the sign-in again.'),
        ),
      SIGN_IN_TTL_MS,
    );
    timer.unref?.();
    this.waiting.set(key, {
      outcome,
      settle: (result) => {
        clearTimeout(timer);
        settle(result);
      },
    });
  }

  /**
   * Settles the sign-in once. Its outcome is kept for the sign-in's life: a client that brings the user's
   * answer in a second call (MCP 2026-07-28) may ask for it after the callback.
   */
  private settle(key: string, outcome: ChannelDetail | Error): void {
    const waiting = this.waiting.get(key);
    if (!waiting || waiting.settled) return;
    waiting.settled = true;
    waiting.settle(outcome);
    setTimeout(() => this.waiting.delete(key), SIGN_IN_TTL_MS).unref?.();
  }

  /**
   * The browser came back to the redirect URI with `address`: the sign-in is taken (once), its code
   * traded for tokens, the account verified and the channel connected. Rejects with SignInRefused,
   * whose message says what happened and what to do.
   */
  async complete(address: string): Promise<ChannelDetail> {
    const state = new URL(address, 'http://callback.invalid').searchParams.get('state') ?? '';
    const key = hashOf(state);
    try {
      const channel = await this.finish(address, state);
      this.settle(key, channel);
      return channel;
    } catch (error) {
      this.settle(key, error as Error);
      throw error;
    }
  }

  private async finish(address: string, state: string): Promise<ChannelDetail> {
    const { store, secrets, clock, apps, http } = this.options;
    const pending = state ? await store.connections.takeSignIn(hashOf(state)) : undefined;
    if (!pending) {
      throw new SignInRefused('This sign-in is unknown or was used already: start it again.');
    }
    if (pending.expiresAtMs <= clock.now()) {
      throw new SignInRefused('This sign-in expired (they last 10 minutes): start it again.');
    }
    const request = JSON.parse(secrets.open(pending.sealed, SEAL_ID)) as SealedRequest;
    const code = codeFromRedirect(address, state);
    const user = await store.getUser(request.userId);
    if (!user || !(await store.findBrandOfUser(user.id, pending.brandId))) {
      throw new SignInRefused(
        'The user who began this sign-in no longer has the brand: nothing was connected.',
      );
    }
    const module = connectorModule(request.platform);
    const way = signInOf(module, request.login);
    const app = way.app!;
    const hooks = await way.oauth!();
    const client = apps.require(module.displayName, app, request.redirectUri);
    const authRoot = client.authRoot ?? app.authRoot;
    const apiRoot = client.apiRoot ?? app.apiRoot;
    const tokens = await exchangeCode(
      hooks,
      {
        authRoot,
        client,
        redirectUri: request.redirectUri,
        code,
        ...(request.codeVerifier ? { codeVerifier: request.codeVerifier } : {}),
      },
      http,
    );
    const identities = await identitiesOf(hooks, { apiRoot, accessToken: tokens.accessToken }, http);
    let identity: ReturnType<typeof chooseIdentity>;
    try {
      identity = chooseIdentity(identities, request.account);
    } catch (error) {
      if (!(error instanceof IdentityChoiceNeeded)) throw error;
      throw new SignInRefused(
        `${request.account === undefined ? 'This account can post as several identities' : `No identity matches "${request.account}"`}: start the sign-in again with "account" set to one of them:\n${identityList(identities)}`,
      );
    }
    const verified = await module.connect.verify({
      endpoint: apiRoot,
      ...(identity ? { account: identity.id } : {}),
      secret: tokens.accessToken,
      tokens,
      ...(request.login === undefined ? {} : { login: request.login }),
      ...http,
    });
    const { secret, ...made } = verified;
    // Made through another authorization origin: the connection keeps it, for its token refreshes.
    const connection =
      authRoot === app.authRoot ? made : { ...made, settings: { ...made.settings, authRoot } };
    const channelId = await connectChannel(store, secrets, clock, {
      brandId: pending.brandId,
      type: module.channelType,
      connection,
      secret: { value: secret },
      collectionIds: request.collectionIds,
    });
    const channel = (await store.findChannel(pending.brandId, channelId))!;
    return presentChannelDetail(store, channel, this.options.defaultConnector);
  }
}
