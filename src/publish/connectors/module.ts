/**
 * What a connector module tells the rest of the program about its platform (style.md rule 13): one
 * descriptor per folder (`connectors/<platform>/index.ts`), listed once in registry.ts, from which the
 * kinds, the `connect` flags and usage, the workspace file's connections, get_channel's wording and the
 * docs check are derived. A descriptor is plain data and lazy loaders: it is read before the program
 * has loaded anything (the command line is parsed with it), so it imports nothing but types, and its
 * platform's code loads only when a channel of that platform publishes or connects.
 */
import type { PostPayload } from '../../domain/post-schemas.js';
import type { ChannelType } from '../../domain/schemas.js';
import type { OpenConnector, VerifiedConnection } from '../connector.js';

/** A flag of `connect <platform>` beyond the ones every platform takes (--brand, --collection, --name). */
export interface ConnectFlag {
  /** Without the dashes: `instance`. */
  readonly name: string;
  /**
   * What it gives: the platform's address (`endpoint`), the account (`account`), or the name of the
   * environment variable that holds the secret (`secret`: the value is a secret, the flag is not).
   */
  readonly role: 'endpoint' | 'account' | 'secret';
  /** Its value's placeholder in the usage line: `URL`, `H`, `VAR`. */
  readonly value: string;
  /** Without it the command stops and says so (an endpoint with a `fallback` is never required). */
  readonly required?: boolean;
  /** The value when it is not given: the platform's public address. */
  readonly fallback?: string;
  /** What it is for, in a sentence of the help. */
  readonly help: string;
}

/** What `connect` hands a module's `verify`, the secret read or asked for already. */
export interface ConnectInput {
  /** The platform's address, from the endpoint flag or its fallback, without a trailing slash. */
  endpoint: string;
  /** The account flag's value, when the platform has one. */
  account?: string;
  /** The secret: a token or app password (from the environment, the terminal, or an OAuth sign-in). */
  secret: string;
  /** The OAuth sign-in's tokens, when it ran (`secret` is their access token). */
  tokens?: OAuthTokens;
  /** Which of the module's sign-ins gave them (`--login`), for a module with several (`logins`). */
  login?: string;
  userAgent: string;
  timeoutMs: number;
}

/** What `connect <kind>` takes, and how it checks an account. */
export interface ConnectSpec {
  /** In the order the usage line shows them; required ones first. */
  readonly flags: readonly ConnectFlag[];
  /**
   * The question asked on the terminal (unechoed) when no secret flag is given and the module has no
   * OAuth sign-in: `Bot token from @BotFather: `.
   */
  secretPrompt?(account: string | undefined): string;
  /**
   * Checks the credentials against the platform and says what to store (loading the connector's
   * code). Rejects with an Error that says what to fix and never contains the secret.
   */
  verify(input: ConnectInput): Promise<VerifiedConnection>;
}

/**
 * The operator's developer apps (product.md): each is given as SOCIAL_PUBLISHER_<APP>_CLIENT_ID and
 * SOCIAL_PUBLISHER_<APP>_CLIENT_SECRET, or in DATA_DIR/apps.json (src/oauth-apps.ts).
 */
export const OAUTH_APP_NAMES = [
  'X',
  'LINKEDIN',
  'FACEBOOK',
  'INSTAGRAM',
  'THREADS',
  'GOOGLE',
  'TIKTOK',
  'PINTEREST',
] as const;
export type OAuthAppName = (typeof OAUTH_APP_NAMES)[number];

/** A platform whose sign-in uses an app the operator registered there (every OAuth platform but Mastodon). */
export interface OAuthAppSpec {
  /** Which app's credentials: `SOCIAL_PUBLISHER_<name>_CLIENT_ID`. */
  readonly name: OAuthAppName;
  /** Where the operator registers the app (said when its credentials are missing). */
  readonly registerAt: string;
  /**
   * The origin of the platform's authorization page and token endpoint (`--auth-root` replaces it;
   * the connection keeps the one it was made with in `settings.authRoot`).
   */
  readonly authRoot: string;
  /** The origin of every other call (`--api-root` replaces it): the connection's `endpoint`. */
  readonly apiRoot: string;
}

/** An identity the approved account may post as: the member, an organization page, a Page, a board. */
export interface OAuthIdentity {
  /** The platform's id (what `--account` matches first, and what `verify` is given as `account`). */
  id: string;
  /** As the platform shows it (what `--account` matches next). */
  name: string;
  /** What it is, in a word for the list: `member`, `organization`. */
  kind?: string;
}

/** An OAuth client of the platform: registered by the program itself (Mastodon) or the operator's app. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** What a token endpoint gave. A new `refreshToken` replaces the old one (refresh tokens may rotate). */
export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string;
  /** When the access token expires (UTC ms); absent: it does not (Mastodon). */
  expiresAtMs?: number;
  /** The scopes granted, space separated, when the platform says. */
  scope?: string;
}

/** How the OAuth steps reach the platform. */
export interface OAuthHttp {
  userAgent: string;
  timeoutMs: number;
}

/**
 * A platform's OAuth 2 authorization code flow, in the steps `connect` (and later `serve`'s callback)
 * drives: the program keeps the state, the PKCE verifier and the listener; the module knows the
 * platform's addresses and answers. `endpoint` is the platform's address (`--auth-root`, or for
 * Mastodon the instance).
 */
export interface OAuthHooks {
  /** What the connector needs. */
  readonly scopes: readonly string[];
  /**
   * The scopes to ask for when the user names the identity to post as (`--account`): a platform whose
   * app may lack the scopes of some identities (LinkedIn pages need a reviewed product; asking for a
   * scope the app lacks fails the whole sign-in) asks for them only when they are wanted. Default: `scopes`.
   */
  scopesFor?(account: string | undefined): readonly string[];
  /** The platform takes PKCE (S256): `codeChallenge` is sent, `codeVerifier` exchanged with the code. */
  readonly pkce: boolean;
  /**
   * The redirect URI that makes the platform show the code for the user to paste (`--paste-code`);
   * without one, the user pastes the address the browser ended on.
   */
  readonly pasteRedirectUri?: string;
  /**
   * Registers the program as an OAuth client on the platform at `endpoint` (Mastodon: an app on each
   * instance). Without it, the operator's app credentials are used (`SOCIAL_PUBLISHER_<APP>_CLIENT_ID`).
   */
  registerClient?(params: { endpoint: string; redirectUri: string } & OAuthHttp): Promise<OAuthClient>;
  /** The platform's page where the user approves the app; it sends `code` and `state` to `redirectUri`. */
  authorizationUrl(params: {
    endpoint: string;
    clientId: string;
    redirectUri: string;
    state: string;
    /** base64url(SHA-256(verifier)), when `pkce`. */
    codeChallenge?: string;
    scopes: readonly string[];
  }): string;
  /** Trades the code for tokens. Rejects with an Error that says what to do, never holding a secret. */
  exchangeCode(
    params: {
      endpoint: string;
      code: string;
      codeVerifier?: string;
      redirectUri: string;
    } & OAuthClient &
      OAuthHttp,
  ): Promise<OAuthTokens>;
  /**
   * The identities the approved account may post as, when there can be several (LinkedIn: the member
   * and the organization pages they administer). Absent: the account itself, as `verify` finds it.
   * `endpoint` is the API root.
   */
  identities?(params: { endpoint: string; accessToken: string } & OAuthHttp): Promise<OAuthIdentity[]>;
  /** A new access token from the refresh token. Absent: the platform's tokens do not expire. */
  refresh?(
    params: { endpoint: string; refreshToken: string } & OAuthClient & OAuthHttp,
  ): Promise<OAuthTokens>;
}

/** What pre-flight knows of a post on one connected channel, for its module's own notes. */
export interface PreflightFacts {
  payload: PostPayload;
  /** The connection's settings (a privacy level, a board). */
  settings: Readonly<Record<string, unknown>>;
  /** Each media element's MIME type when known (uploaded files), and whether it is an uploaded file. */
  media: readonly { type?: string; uploaded: boolean }[];
  /** The server hands out public addresses of uploaded files (serve with a public URL). */
  publicMedia: boolean;
}

/** A module's note on a post: what will happen on its platform beyond the shared rules. */
export interface PreflightNote {
  outcome: 'fail' | 'skip' | 'change';
  message: string;
}

/** One platform's connector, as the registry lists it. */
export interface ConnectorModule<K extends string = string> {
  /** `connect <kind>`, the workspace file's `connector`, get_channel's `connector`: lowercase. */
  readonly kind: K;
  /** The channel type it publishes as (http-interface.md). */
  readonly channelType: ChannelType;
  /** The platform's name in messages and docs. */
  readonly displayName: string;
  /**
   * Whether its connector deduplicates a repeated send (its `Publisher.idempotent`), known without
   * loading it: only then is a send whose outcome is unknown sent again.
   */
  readonly idempotent: boolean;
  readonly connect: ConnectSpec;
  /** How the workspace file and get_channel describe a connection's account and address. */
  readonly describe: {
    /** The account as the platform's people write it: `@name@instance`. */
    readonly account: string;
    /** The platform's address: `Mastodon instance`. */
    readonly address: string;
  };
  /** The connection's settings that a workspace file's connection implies (Telegram: the chat id). */
  importedSettings?(accountId: string): Record<string, unknown>;
  /** Loads the connector's code and gives its opener. */
  load(): Promise<OpenConnector>;
  /**
   * The platform fetches media from a public address rather than taking the bytes (Threads, Instagram):
   * pre-flight says so when the server hands out no public address of uploaded files.
   */
  readonly fetchesMediaByUrl?: boolean;
  /**
   * The platform's token dies unrenewed (Meta's 60-day tokens): the engine renews it this long before
   * its expiry even on a channel that posts nothing (publish/keep-signed-in.ts).
   */
  readonly keepSignedInMs?: number;
  /**
   * What pre-flight says of a post on this platform beyond the shared rules (no comment API, an
   * unaudited app's limits). Plain code of the descriptor: it may import nothing.
   */
  preflight?(facts: PreflightFacts): PreflightNote[];
  /** The operator's app its OAuth sign-in needs; absent: none (Mastodon registers its own). */
  readonly app?: OAuthAppSpec;
  /** Loads the platform's OAuth steps; absent where the secret is typed or read from the environment. */
  oauth?(): Promise<OAuthHooks>;
  /**
   * A platform with more than one sign-in, each with an app of its own (Instagram: Facebook Login with
   * the FACEBOOK app, or Instagram Login with the INSTAGRAM app), chosen with `connect <kind> --login
   * NAME`: `app` and `oauth` above are the default's (`default`), `others` the rest. A connection made
   * with one keeps its name in `settings.login`, so that its refreshes use that app (signInOf).
   */
  readonly logins?: { readonly default: string; readonly others: Readonly<Record<string, SignInWay>> };
}

/** One of a platform's sign-ins: the operator's app it uses, and its OAuth steps. */
export interface SignInWay {
  readonly app: OAuthAppSpec;
  oauth(): Promise<OAuthHooks>;
}

/** The names of a module's sign-ins, the default first; empty for a module with one (or none). */
export function loginNames(module: Pick<ConnectorModule, 'logins'>): string[] {
  return module.logins ? [module.logins.default, ...Object.keys(module.logins.others)] : [];
}

/**
 * The sign-in a connection or a `connect` uses: the one `login` names among the module's `logins`, else
 * the module's own `app` and `oauth` (also when `login` is not a string: a connection's settings).
 */
export function signInOf(
  module: Pick<ConnectorModule, 'app' | 'oauth' | 'logins'>,
  login: unknown,
): { app?: OAuthAppSpec; oauth?: () => Promise<OAuthHooks> } {
  const other = typeof login === 'string' ? module.logins?.others[login] : undefined;
  if (other) return { app: other.app, oauth: () => other.oauth() };
  return {
    ...(module.app ? { app: module.app } : {}),
    ...(module.oauth ? { oauth: () => module.oauth!() } : {}),
  };
}
