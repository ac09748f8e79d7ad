/**
 * The one place that reads process.env and argv. Defaults < environment < command line; the result is
 * validated and frozen. Errors are messages for the person at the terminal.
 */

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type ConnectRequest, type FlagValues, parseConnect } from './config-connect.js';
import { type MediaBucketConfig, parseMediaBucket } from './config-media-bucket.js';
import {
  ConfigError,
  httpUrl,
  nonEmpty,
  parseAllowList,
  parseDatabase,
  parseDrainSeconds,
  parseLeaseSeconds,
  parseSendsInFlight,
  parseTimeoutSeconds,
} from './config-values.js';
import { parseReadOnly, parseToolsets, type ToolSelection } from './mcp/toolsets.js';
import { DEFAULT_REDIRECT_URI, loadOAuthApps, type OAuthApps } from './oauth-apps.js';
import { CONNECT_FLAGS, CONNECT_OPTIONS } from './publish/connectors/connect-flags.js';
import { connectedKindList } from './publish/connectors/registry.js';
import { USAGE } from './usage.js';

export { ConfigError, type ConnectRequest, USAGE };

export type Command = 'stdio' | 'serve' | 'import' | 'connect' | 'disconnect' | 'keys' | 'help' | 'version';

/** `keys create|list|revoke`: the API keys of a user of the local store. */
export interface KeysRequest {
  action: 'create' | 'list' | 'revoke';
  /** A user's name or id; required but for `list`. */
  user?: string;
  /** `revoke`: the key's id, its prefix or the whole key. */
  key?: string;
}

export interface Config {
  command: Command;
  /** `import FILE` */
  importFile?: string;
  connect?: ConnectRequest;
  /** `disconnect --brand B --channel C` */
  disconnect?: { brand: string; channel: string };
  keys?: KeysRequest;
  /** Encrypts channel secrets at rest; default: a key file in the data directory. */
  secretKey?: string;
  /** Deadline of one request to a platform (Mastodon, Bluesky, Telegram). Default 30 s. */
  platformTimeoutMs: number;
  /** Reads an environment variable that a workspace file names as a channel's secret. */
  readEnv: (name: string) => string | undefined;
  /** The operator's developer apps on the OAuth platforms (oauth-apps.ts). */
  oauthApps: OAuthApps;
  /**
   * `serve`'s public origin (SOCIAL_PUBLISHER_PUBLIC_URL): sign-ins begun over REST or MCP come back to
   * its /oauth/callback. Absent: `serve` completes none.
   */
  publicUrl?: string;
  /** Where stdio's sign-ins come back (SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI, else a loopback default). */
  oauthRedirectUri: string;
  host: string;
  port: number;
  dataDir: string;
  apiKey?: string;
  apiUrl?: string;
  /** Create the demo workspace in an empty store. */
  demo: boolean;
  /** Which MCP tools are offered: read-only mode and toolsets (mcp/toolsets.ts). */
  tools: ToolSelection;
  publisher: PublisherConfig;
  /** Addresses or CIDR ranges media URLs may point to although private (default: none). */
  mediaUrlAllow: string[];
  /**
   * How long a claim on a delivery lasts unless renewed: how soon another process takes over the
   * deliveries of one that stopped mid-send. Default 30 s.
   */
  claimLeaseMs: number;
  /** How many deliveries one process sends at once. Default 1000. */
  sendsInFlight: number;
  /**
   * `serve`, on SIGTERM: how long /health answers 503 while requests are still served, before the
   * listener closes, so that a load balancer stops sending first. Default 0.
   */
  drainMs: number;
  /**
   * A PostgreSQL server to store in (`postgres://…`), shared by every instance that names it; absent:
   * SQLite, one file in the data directory. `timeoutMs`: the deadline of each wait for it (a connection,
   * a statement's answer), after which the call answers 503; default 10 s.
   */
  database?: { url: string; poolSize: number; timeoutMs?: number };
  /** Object storage that keeps uploaded media (SOCIAL_PUBLISHER_MEDIA_S3_BUCKET and the rest); absent: the media directory. */
  mediaBucket?: MediaBucketConfig;
}

/** Where deliveries go: the sandbox (records them) or a webhook (POSTs each, signed). */
export type PublisherConfig =
  | { kind: 'sandbox' }
  | {
      kind: 'webhook';
      url: string;
      secret: string;
      /**
       * The receiver publishes once per `idempotency-key` (SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES): a
       * send whose outcome is unknown (a timeout, a process killed mid-send) is sent again, instead of
       * failed. Off unless the operator says so, since a receiver that does not would publish twice.
       */
      deduplicates: boolean;
    };

/** The OS's per-user data directory for this program. */
export function defaultDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'social-publisher-mcp');
  if (platform === 'win32')
    return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'social-publisher-mcp');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'social-publisher-mcp');
}

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Readonly<Config> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const [first, ...rest] = positionals;

  let command: Command;
  if (values.help) command = 'help';
  else if (values.version) command = 'version';
  else if (first === undefined || first === 'stdio') command = 'stdio';
  else if (['serve', 'import', 'connect', 'disconnect', 'keys'].includes(first)) command = first as Command;
  else throw new ConfigError(`Unknown command "${first}".\n\n${USAGE}`);

  const expected = command === 'import' || command === 'connect' || command === 'keys' ? 1 : 0;
  if (rest.length !== expected && command !== 'help' && command !== 'version') {
    throw new ConfigError(
      command === 'import'
        ? `import needs exactly one FILE.\n\n${USAGE}`
        : command === 'connect'
          ? `connect needs the platform: ${connectedKindList()}.\n\n${USAGE}`
          : command === 'keys'
            ? `keys needs one action: create, list or revoke.\n\n${USAGE}`
            : `Unexpected argument "${rest[0]}".\n\n${USAGE}`,
    );
  }
  const flags = values as FlagValues;
  const connectFlags = CONNECT_FLAGS.filter((flag) => flags[flag] !== undefined);
  if (connectFlags.length > 0 && command !== 'connect' && command !== 'disconnect') {
    throw new ConfigError(`--${connectFlags[0]} applies to connect and disconnect only.\n\n${USAGE}`);
  }
  if ((values.user !== undefined || values.key !== undefined) && command !== 'keys') {
    throw new ConfigError(`--user and --key apply to keys only.\n\n${USAGE}`);
  }
  if ((values.host !== undefined || values.port !== undefined) && command !== 'serve') {
    throw new ConfigError(`--host and --port apply to serve only.\n\n${USAGE}`);
  }

  const port = Number(values.port ?? '8787');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`--port must be an integer from 0 to 65535, not "${values.port}".`);
  }
  const demo = nonEmpty(env.SOCIAL_PUBLISHER_DEMO);
  if (demo !== undefined && demo !== '0' && demo !== '1') {
    throw new ConfigError(`SOCIAL_PUBLISHER_DEMO must be 0 or 1, not "${demo}".`);
  }
  const apiUrl = nonEmpty(env.SOCIAL_PUBLISHER_API_URL);
  if (apiUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(apiUrl)) {
    throw new ConfigError(`SOCIAL_PUBLISHER_API_URL must be an http(s) URL ending in /v1, not "${apiUrl}".`);
  }
  const dataDir = nonEmpty(env.SOCIAL_PUBLISHER_DATA_DIR);

  const resolvedDataDir = dataDir ? resolve(dataDir) : defaultDataDir(env);
  const config: Config = {
    command,
    host: values.host ?? '127.0.0.1',
    port,
    dataDir: resolvedDataDir,
    demo: demo !== '0',
    tools: parseToolSelection(env),
    publisher: loadPublisherConfig(env, resolvedDataDir),
    mediaUrlAllow: parseAllowList(env.SOCIAL_PUBLISHER_MEDIA_URL_ALLOW),
    claimLeaseMs: parseLeaseSeconds(env.SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS) * 1000,
    sendsInFlight: parseSendsInFlight(env.SOCIAL_PUBLISHER_SENDS_IN_FLIGHT),
    drainMs: parseDrainSeconds(env.SOCIAL_PUBLISHER_DRAIN_SECONDS) * 1000,
    platformTimeoutMs: parseTimeoutSeconds(env.SOCIAL_PUBLISHER_PLATFORM_TIMEOUT_SECONDS) * 1000,
    readEnv: (name) => nonEmpty(env[name]),
    oauthApps: loadOAuthApps(env, resolvedDataDir),
    oauthRedirectUri: parseRedirectUri(nonEmpty(env.SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI)),
  };
  const publicUrl = parsePublicUrl(nonEmpty(env.SOCIAL_PUBLISHER_PUBLIC_URL));
  if (publicUrl) config.publicUrl = publicUrl;
  const secretKey = nonEmpty(env.SOCIAL_PUBLISHER_SECRET_KEY);
  if (secretKey) config.secretKey = secretKey;
  const database = parseDatabase(
    nonEmpty(env.SOCIAL_PUBLISHER_DATABASE_URL),
    nonEmpty(env.SOCIAL_PUBLISHER_DATABASE_POOL_SIZE),
    nonEmpty(env.SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS),
    apiUrl,
  );
  if (database) config.database = database;
  const mediaBucket = parseMediaBucket(env, apiUrl);
  if (mediaBucket) config.mediaBucket = mediaBucket;
  if (command === 'import') config.importFile = resolve(rest[0]!);
  if (command === 'connect') config.connect = parseConnect(rest[0]!, flags, env);
  if (command === 'disconnect') {
    const { brand, channel } = flags;
    if (typeof brand !== 'string' || !brand || typeof channel !== 'string' || !channel) {
      throw new ConfigError(`disconnect needs --brand and --channel.\n\n${USAGE}`);
    }
    config.disconnect = { brand, channel };
  }
  if (command === 'keys') config.keys = parseKeys(rest[0]!, values, apiUrl);
  const apiKey = nonEmpty(env.SOCIAL_PUBLISHER_API_KEY);
  if (apiKey) config.apiKey = apiKey;
  if (apiUrl) config.apiUrl = apiUrl;
  return Object.freeze(config);
}

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>
>['values'];

function parseKeys(action: string, values: Values, apiUrl: string | undefined): KeysRequest {
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    throw new ConfigError(`keys: unknown action "${action}"; use create, list or revoke.\n\n${USAGE}`);
  }
  if (apiUrl !== undefined) {
    throw new ConfigError(
      `keys manages the keys of the local store (SOCIAL_PUBLISHER_DATA_DIR), but SOCIAL_PUBLISHER_API_URL is set: unset it, or run keys on the server at ${apiUrl} with its data directory.`,
    );
  }
  if (action !== 'list' && !values.user) {
    throw new ConfigError(`keys ${action} needs --user NAME (a user's name or id; "keys list" shows them).`);
  }
  if (action === 'revoke' && !values.key) {
    throw new ConfigError('keys revoke needs --key: the id or prefix "keys list" shows, or the whole key.');
  }
  if (action !== 'revoke' && values.key !== undefined) {
    throw new ConfigError(`keys ${action} does not take --key.\n\n${USAGE}`);
  }
  const request: KeysRequest = { action };
  if (values.user) request.user = values.user;
  if (values.key) request.key = values.key;
  return request;
}

function parseToolSelection(env: NodeJS.ProcessEnv): ToolSelection {
  try {
    // A bundle host leaves an unset setting as its `${user_config.…}` placeholder: unset.
    const toolsets = parseToolsets(nonEmpty(env.SOCIAL_PUBLISHER_TOOLSETS));
    const readOnly = parseReadOnly(nonEmpty(env.SOCIAL_PUBLISHER_READ_ONLY));
    return { readOnly, ...(toolsets ? { toolsets } : {}) };
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** The environment wins over `publisher.json` in the data directory; neither means the sandbox. */
function loadPublisherConfig(env: NodeJS.ProcessEnv, dataDir: string): PublisherConfig {
  let file: { webhookUrl?: unknown; webhookSecret?: unknown; webhookDeduplicates?: unknown } = {};
  const path = join(dataDir, 'publisher.json');
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as typeof file;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`Cannot read ${path}: ${(error as Error).message}`);
    }
  }
  const url =
    nonEmpty(env.SOCIAL_PUBLISHER_WEBHOOK_URL) ??
    (typeof file.webhookUrl === 'string' ? file.webhookUrl : undefined);
  const secret =
    nonEmpty(env.SOCIAL_PUBLISHER_WEBHOOK_SECRET) ??
    (typeof file.webhookSecret === 'string' ? file.webhookSecret : undefined);
  const deduplicates = parseDeduplicates(
    nonEmpty(env.SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES) ?? file.webhookDeduplicates,
  );
  if (url === undefined && secret === undefined) {
    if (deduplicates !== undefined) {
      throw new ConfigError(
        'SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES is about the webhook publisher: set SOCIAL_PUBLISHER_WEBHOOK_URL and SOCIAL_PUBLISHER_WEBHOOK_SECRET too, or leave it unset.',
      );
    }
    return { kind: 'sandbox' };
  }
  if (url === undefined || !/^https?:\/\/\S+$/.test(url)) {
    throw new ConfigError('The webhook publisher needs an http(s) URL: set SOCIAL_PUBLISHER_WEBHOOK_URL.');
  }
  if (secret === undefined || secret.length < 16) {
    throw new ConfigError(
      'The webhook publisher needs a secret of at least 16 characters: set SOCIAL_PUBLISHER_WEBHOOK_SECRET.',
    );
  }
  return { kind: 'webhook', url, secret, deduplicates: deduplicates ?? false };
}

/** SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES (or `webhookDeduplicates` in publisher.json): undefined if unset. */
function parseDeduplicates(value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(text)) return true;
  if (['0', 'false', 'no'].includes(text)) return false;
  throw new ConfigError(
    `SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES must be 1 or 0 (or true or false), not ${JSON.stringify(value)}.`,
  );
}

/** The `connect` flags come from the connector registry (connect-flags.ts). */
const OPTIONS = {
  ...CONNECT_OPTIONS,
  host: { type: 'string' },
  port: { type: 'string' },
  user: { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** SOCIAL_PUBLISHER_PUBLIC_URL: an http(s) origin (a path is kept: a server behind a prefix). */
function parsePublicUrl(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const url = httpUrl(text);
  if (!url) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_PUBLIC_URL must be the server's public http(s) address, such as https://publisher.example.com, not "${text}".`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

function parseRedirectUri(text: string | undefined): string {
  if (text === undefined) return DEFAULT_REDIRECT_URI;
  if (!/^https?:\/\/\S+$/.test(text)) {
    throw new ConfigError(`SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI must be an http(s) URL, not "${text}".`);
  }
  return text;
}
