/**
 * The operator's developer apps on the OAuth platforms (product.md): for each app name, a client id
 * and secret from SOCIAL_PUBLISHER_<APP>_CLIENT_ID and SOCIAL_PUBLISHER_<APP>_CLIENT_SECRET, else from
 * DATA_DIR/apps.json (`{"X": {"clientId": "…", "clientSecret": "…"}, …}`). The client secret is a
 * secret: it is never logged, returned or put in a message. Part of the config: read once at start.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, nonEmpty } from './config-values.js';
import {
  OAUTH_APP_NAMES,
  type OAuthAppName,
  type OAuthAppSpec,
  type OAuthClient,
} from './publish/connectors/module.js';

/** The default redirect URI of the operator's apps (product.md): a loopback listener of `connect`. */
export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:8788/callback';

/**
 * An app's credentials, and the platform's origins when apps.json replaces them (a self-hosted gateway,
 * a stand-in in tests: as `--auth-root` and `--api-root` do for `connect`).
 */
export interface OAuthAppCredentials extends OAuthClient {
  authRoot?: string;
  apiRoot?: string;
}

export interface OAuthApps {
  /** The app's credentials, when both are configured. */
  get(name: OAuthAppName): OAuthAppCredentials | undefined;
  /**
   * The app's credentials for `connect <platform>` and sign-ins from `serve`; a missing one throws a
   * ConfigError naming the settings, the file, and where the app is registered.
   */
  require(platform: string, app: OAuthAppSpec, redirectUri?: string): OAuthAppCredentials;
}

/** The settings of an app, as the README and errors name them. */
export const clientIdVariable = (name: OAuthAppName) => `SOCIAL_PUBLISHER_${name}_CLIENT_ID`;
export const clientSecretVariable = (name: OAuthAppName) => `SOCIAL_PUBLISHER_${name}_CLIENT_SECRET`;

export function loadOAuthApps(env: NodeJS.ProcessEnv, dataDir: string): OAuthApps {
  const path = join(dataDir, 'apps.json');
  let file: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error('it must hold an object such as {"X": {"clientId": "…", "clientSecret": "…"}}');
    }
    file = parsed as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`Cannot read ${path}: ${(error as Error).message}`);
    }
  }
  for (const key of Object.keys(file)) {
    if (!(OAUTH_APP_NAMES as readonly string[]).includes(key)) {
      throw new ConfigError(`${path} names an unknown app "${key}": use ${OAUTH_APP_NAMES.join(', ')}.`);
    }
  }
  const apps = new Map<OAuthAppName, OAuthAppCredentials>();
  const origin = (name: string, key: string, value: unknown): { [key: string]: string } => {
    if (value === undefined) return {};
    if (typeof value !== 'string' || !/^https?:\/\/[^\s/]+/.test(value)) {
      throw new ConfigError(
        `${path}: ${name}.${key} must be an http(s) origin, not ${JSON.stringify(value)}.`,
      );
    }
    return { [key]: value.replace(/\/+$/, '') };
  };
  for (const name of OAUTH_APP_NAMES) {
    const entry = (file[name] ?? {}) as {
      clientId?: unknown;
      clientSecret?: unknown;
      authRoot?: unknown;
      apiRoot?: unknown;
    };
    const clientId =
      nonEmpty(env[clientIdVariable(name)]) ??
      (typeof entry.clientId === 'string' ? nonEmpty(entry.clientId) : undefined);
    const clientSecret =
      nonEmpty(env[clientSecretVariable(name)]) ??
      (typeof entry.clientSecret === 'string' ? nonEmpty(entry.clientSecret) : undefined);
    const roots = { ...origin(name, 'authRoot', entry.authRoot), ...origin(name, 'apiRoot', entry.apiRoot) };
    if (clientId !== undefined && clientSecret !== undefined)
      apps.set(name, { clientId, clientSecret, ...roots });
  }
  return {
    get: (name) => apps.get(name),
    require(platform, app, redirectUri) {
      const found = apps.get(app.name);
      if (found) return found;
      const redirect = redirectUri ? ` with the redirect URI ${redirectUri}` : '';
      throw new ConfigError(
        `Connecting ${platform} needs the operator's ${platform} app: set ${clientIdVariable(app.name)} and ${clientSecretVariable(app.name)} (or "${app.name}": {"clientId": "…", "clientSecret": "…"} in ${path}). Register the app at ${app.registerAt}${redirect}.`,
      );
    },
  };
}
