/**
 * The secret of a connection made by an OAuth sign-in with the operator's app (X, LinkedIn and the
 * platforms after them): its tokens as JSON, and the access token a connector sends, kept fresh. The
 * token is refreshed ahead of its expiry, or once after the platform refused it (401), through the
 * engine (`ConnectorContext.refreshSecret`): one process refreshes it, the others take what it stored,
 * and a rotating refresh token is spent once. A refresh the platform refuses for good answers
 * `reconnect` with the platform's reason.
 */
import type { ConnectorContext } from '../connector.js';
import type { OAuthClient, OAuthHooks, OAuthTokens } from './module.js';

/** How long before its expiry an access token is refreshed: a send never starts with one about to die. */
export const REFRESH_AHEAD_MS = 5 * 60_000;

/** The stored secret of an OAuth connection. */
export function tokensSecret(tokens: OAuthTokens): string {
  return JSON.stringify({
    accessToken: tokens.accessToken,
    ...(tokens.refreshToken === undefined ? {} : { refreshToken: tokens.refreshToken }),
    ...(tokens.expiresAtMs === undefined ? {} : { expiresAtMs: tokens.expiresAtMs }),
    ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
  });
}

/** The tokens of a stored secret; throws an Error that says to reconnect when it is not one. */
export function tokensOf(secret: string): OAuthTokens {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret);
  } catch {
    parsed = undefined;
  }
  const tokens = parsed as Partial<OAuthTokens> | undefined;
  if (!tokens || typeof tokens.accessToken !== 'string' || tokens.accessToken === '') {
    throw new Error(
      'The stored sign-in of this channel is unreadable: run social-publisher-mcp connect again.',
    );
  }
  return {
    accessToken: tokens.accessToken,
    ...(typeof tokens.refreshToken === 'string' ? { refreshToken: tokens.refreshToken } : {}),
    ...(typeof tokens.expiresAtMs === 'number' ? { expiresAtMs: tokens.expiresAtMs } : {}),
    ...(typeof tokens.scope === 'string' ? { scope: tokens.scope } : {}),
  };
}

/** Thrown when the token cannot be refreshed: the connector answers `reconnect` with this reason. */
export class SignInExpired extends Error {}

export interface TokenKeeperOptions {
  /** The connection's stored secret (`tokensSecret`). */
  secret: string;
  /** The platform's OAuth steps (its module's `oauth()`), loaded when a refresh is first needed. */
  hooks: () => Promise<OAuthHooks>;
  /** The origin of the platform's token endpoint: the connection's `settings.authRoot`, else the app's. */
  authRoot: string;
  /** The platform's name, for the reasons. */
  platform: string;
  /**
   * Renew a long-lived token this long before its expiry, while it still works (Meta's 60-day tokens
   * die unrenewed): tried once per keeper, and a refusal leaves the token in hand until REFRESH_AHEAD_MS.
   */
  renewAheadMs?: number;
  context: Pick<ConnectorContext, 'clock' | 'refreshSecret' | 'oauthClient' | 'timeoutMs' | 'userAgent'>;
}

/**
 * A connector's access token: `token()` before each call, `refused(token)` after a 401 (gives the
 * token to retry with once, refreshed unless another call refreshed it already).
 */
export class TokenKeeper {
  private secret: string;
  private tokens: OAuthTokens;
  private renewTried = false;

  constructor(private readonly options: TokenKeeperOptions) {
    this.secret = options.secret;
    this.tokens = tokensOf(options.secret);
  }

  /** The access token to send now, refreshed first when it expires within REFRESH_AHEAD_MS. */
  async token(): Promise<string> {
    const { expiresAtMs } = this.tokens;
    if (expiresAtMs === undefined) return this.tokens.accessToken;
    const left = expiresAtMs - this.options.context.clock.now();
    if (left < REFRESH_AHEAD_MS) await this.refresh(this.secret);
    else if (left < (this.options.renewAheadMs ?? 0) && !this.renewTried) {
      this.renewTried = true;
      await this.refresh(this.secret).catch(() => undefined);
    }
    return this.tokens.accessToken;
  }

  /** The platform refused `token` (401): the token to retry with, after a refresh if none happened since. */
  async refused(token: string): Promise<string> {
    if (token !== this.tokens.accessToken) return this.tokens.accessToken;
    await this.refresh(this.secret);
    return this.tokens.accessToken;
  }

  private async refresh(stale: string): Promise<void> {
    const { context, platform } = this.options;
    const current = tokensOf(stale);
    if (!current.refreshToken || !context.refreshSecret) {
      throw new SignInExpired(
        `The ${platform} sign-in of this channel has expired and cannot be renewed: run social-publisher-mcp connect again.`,
      );
    }
    const fresh = await context.refreshSecret({
      stale,
      refresh: async (stored) =>
        renewedSecret(stored, {
          hooks: await this.options.hooks(),
          authRoot: this.options.authRoot,
          client: context.oauthClient?.(),
          platform,
          http: { userAgent: context.userAgent, timeoutMs: context.timeoutMs },
        }),
    });
    this.secret = fresh;
    this.tokens = tokensOf(fresh);
  }
}

/**
 * The secret after a refresh of `stored`'s tokens with the platform's hooks and the operator's app:
 * a rotated refresh token replaces the old one; a platform that does not rotate it keeps the one it
 * had. Throws SignInExpired, saying to connect again, when it cannot be renewed.
 */
export async function renewedSecret(
  stored: string,
  params: {
    hooks: OAuthHooks;
    authRoot: string;
    client: OAuthClient | undefined;
    platform: string;
    http: { userAgent: string; timeoutMs: number };
  },
): Promise<string> {
  const { hooks, client, platform } = params;
  const tokens = tokensOf(stored);
  if (!tokens.refreshToken) {
    throw new SignInExpired(`The ${platform} sign-in of this channel cannot be renewed: connect it again.`);
  }
  if (!hooks.refresh) throw new SignInExpired(`${platform} tokens cannot be refreshed: connect again.`);
  if (!client) throw new SignInExpired(`No ${platform} app credentials are configured to renew the sign-in.`);
  let renewed: OAuthTokens;
  try {
    renewed = await hooks.refresh({
      endpoint: params.authRoot,
      refreshToken: tokens.refreshToken,
      ...client,
      ...params.http,
    });
  } catch (error) {
    throw new SignInExpired(
      `${platform} refused to renew the sign-in of this channel (${(error as Error).message}): run social-publisher-mcp connect again.`,
    );
  }
  return tokensSecret({ ...renewed, refreshToken: renewed.refreshToken ?? tokens.refreshToken });
}

/**
 * A connection's token for its API calls (`PlatformApi`), kept by a TokenKeeper at the connection's
 * auth root (`settings.authRoot`, else the app's), with every secret known up front: the stored secret,
 * its tokens and the app's client secret. A secret that is not a sign-in's tokens gives a token that
 * rejects with SignInExpired, so every step asks for a reconnect with the reason.
 */
export function connectionToken(
  connection: { secret: string; settings: Readonly<Record<string, unknown>> },
  options: Omit<TokenKeeperOptions, 'secret' | 'authRoot'> & { authRoot: string },
): { token: Pick<TokenKeeper, 'token' | 'refused'>; secrets: string[] } {
  const { authRoot } = connection.settings;
  const client = options.context.oauthClient?.()?.clientSecret ?? '';
  try {
    const keeper = new TokenKeeper({
      ...options,
      secret: connection.secret,
      authRoot: typeof authRoot === 'string' ? authRoot : options.authRoot,
    });
    const tokens = tokensOf(connection.secret);
    return {
      token: keeper,
      secrets: [connection.secret, tokens.accessToken, tokens.refreshToken ?? '', client],
    };
  } catch (error) {
    const expired = new SignInExpired((error as Error).message);
    return {
      token: { token: () => Promise.reject(expired), refused: () => Promise.reject(expired) },
      secrets: [connection.secret, client],
    };
  }
}
