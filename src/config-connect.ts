/**
 * `connect <platform> …` read from the command line, with the flags the platform's module declares
 * (connectors/registry.ts): part of the config (config.ts), so it reads argv and the environment
 * variable a secret flag names, and nothing else.
 */
import { ConfigError, nonEmpty } from './config-values.js';
import { DEFAULT_REDIRECT_URI } from './oauth-apps.js';
import {
  CONNECT_FLAGS,
  flagOf,
  LOGIN_FLAG,
  PASTE_CODE_FLAG,
  takesFlag,
} from './publish/connectors/connect-flags.js';
import { loginNames, signInOf } from './publish/connectors/module.js';
import {
  type ConnectedKind,
  connectedKindList,
  connectorModule,
  isConnectedKind,
} from './publish/connectors/registry.js';
import { USAGE } from './usage.js';

/** `connect <platform> …`: what to connect, and where the secret comes from. */
export interface ConnectRequest {
  platform: ConnectedKind;
  /** A brand's title or id. */
  brand: string;
  /** The platform's address (its module's endpoint flag, or that flag's fallback). */
  endpoint: string;
  /** The account flag's value (Bluesky: the handle; Telegram: the chat), when the platform has one. */
  account?: string;
  /** The secret from the environment variable named by the secret flag; else asked for or signed in. */
  secret?: string;
  /** The channel's name (default: from the account). */
  name?: string;
  /** Collections (titles or ids) to add the channel to. */
  collections: string[];
  /** An OAuth sign-in: where the authorization code is received. */
  redirect: 'loopback' | 'paste';
  /**
   * A platform signed in with the operator's app: the redirect URI registered with the app
   * (`--redirect-uri`, else SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI, else product.md's loopback default)
   * and the authorization origin (`--auth-root`, else the platform's).
   */
  redirectUri?: string;
  authRoot?: string;
  /** Which of the platform's sign-ins (`--login`), for a platform with several (Instagram). */
  login?: string;
}

/** The parsed flags, as node:util parseArgs gives them. */
export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

const text = (value: FlagValues[string]) => (typeof value === 'string' ? value : undefined);

function httpUrl(flag: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(`${flag} must be an http(s) URL, not "${value}".`);
  }
  return value;
}

export function parseConnect(platform: string, values: FlagValues, env: NodeJS.ProcessEnv): ConnectRequest {
  if (!isConnectedKind(platform)) {
    throw new ConfigError(`connect: unknown platform "${platform}"; use ${connectedKindList()}.`);
  }
  const module = connectorModule(platform);
  for (const flag of CONNECT_FLAGS) {
    if (values[flag] !== undefined && !takesFlag(module, flag)) {
      throw new ConfigError(`connect ${platform} does not take --${flag}.\n\n${USAGE}`);
    }
  }
  const brand = text(values.brand);
  if (!brand) throw new ConfigError(`connect ${platform} needs --brand (a brand's title or id).`);
  const login = text(values[LOGIN_FLAG]);
  if (login !== undefined && !loginNames(module).includes(login)) {
    throw new ConfigError(
      `--${LOGIN_FLAG} of connect ${platform} is one of ${loginNames(module).join(', ')}, not "${login}".`,
    );
  }
  const app = signInOf(module, login).app;
  const endpointFlag = flagOf(module, 'endpoint')!;
  // Another sign-in's API root replaces the flag's fallback (Instagram Login: graph.instagram.com).
  const fallback = app && app !== module.app ? app.apiRoot : endpointFlag.fallback;
  const endpoint = text(values[endpointFlag.name]) ?? fallback;
  if (endpoint === undefined) {
    throw new ConfigError(`connect ${platform} needs --${endpointFlag.name} ${endpointFlag.value}.`);
  }
  if (!/^https?:\/\/[^\s/]+/.test(endpoint)) {
    throw new ConfigError(`--${endpointFlag.name} must be an http(s) URL, not "${endpoint}".`);
  }
  const accountFlag = flagOf(module, 'account');
  const account = accountFlag ? text(values[accountFlag.name]) : undefined;
  if (accountFlag && !account) throw new ConfigError(`connect ${platform} needs --${accountFlag.name}.`);
  const collections = values.collection;
  const request: ConnectRequest = {
    platform,
    brand,
    endpoint: endpoint.replace(/\/+$/, ''),
    collections: Array.isArray(collections) ? collections : [],
    redirect: values[PASTE_CODE_FLAG] ? 'paste' : 'loopback',
  };
  if (account) request.account = account;
  if (login !== undefined) request.login = login;
  if (app) {
    const chosen = text(values.account);
    if (chosen !== undefined) {
      if (!chosen.trim()) throw new ConfigError('--account needs an identity: its id or its name.');
      request.account = chosen.trim();
    }
    request.redirectUri = httpUrl(
      '--redirect-uri',
      text(values['redirect-uri']) ??
        nonEmpty(env.SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI) ??
        DEFAULT_REDIRECT_URI,
    );
    request.authRoot = httpUrl('--auth-root', text(values['auth-root']) ?? app.authRoot).replace(/\/+$/, '');
  }
  const name = text(values.name);
  if (name) request.name = name;
  const secretFlag = flagOf(module, 'secret');
  const variable = secretFlag ? text(values[secretFlag.name]) : undefined;
  if (secretFlag && variable !== undefined) {
    const secret = nonEmpty(env[variable]);
    if (!secret)
      throw new ConfigError(`--${secretFlag.name} names ${variable}, which is not set or is empty.`);
    request.secret = secret;
  }
  return request;
}
