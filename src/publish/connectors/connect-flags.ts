/**
 * The `connect` command's flags and usage lines, derived from the registry: each module's own flags
 * (its address, its account, the variable holding its secret), the ones every platform takes, and
 * `--paste-code` for the platforms with an OAuth sign-in. Read by the config and `--help` before
 * anything else loads: plain data, no imports but the registry.
 */
import { type ConnectFlag, type ConnectorModule, loginNames } from './module.js';
import { CONNECTOR_MODULES } from './registry.js';

/** Taken by every `connect` (and `channel` by `disconnect`). */
export const SHARED_CONNECT_FLAGS = ['brand', 'collection', 'name'] as const;

/** The OAuth platforms' flag: the code is pasted instead of received on a loopback redirect. */
export const PASTE_CODE_FLAG = 'paste-code';

const OAUTH_MODULES = CONNECTOR_MODULES.filter((module) => module.oauth !== undefined);

/**
 * The flags of the platforms signed in with the operator's app (product.md, `connect <oauth-platform>`):
 * the identity to post as, the redirect URI registered with the app, and the authorization origin.
 */
export const OAUTH_APP_FLAGS = ['account', 'redirect-uri', 'auth-root'] as const;

/** The platforms signed in with an app the operator registered on them (every OAuth platform but Mastodon). */
const APP_MODULES = CONNECTOR_MODULES.filter((module: ConnectorModule) => module.app !== undefined);

/** The flag that picks one of a platform's sign-ins (its module's `logins`: Instagram's two). */
export const LOGIN_FLAG = 'login';
const LOGIN_MODULES = CONNECTOR_MODULES.filter((module: ConnectorModule) => module.logins !== undefined);

/** The flag of a role (the endpoint, the account, the secret), if the module has one. */
export function flagOf(module: Pick<ConnectorModule, 'connect'>, role: ConnectFlag['role']) {
  return module.connect.flags.find((flag) => flag.role === role);
}

const unique = (names: readonly string[]) => [...new Set(names)];
const ownFlags = (roles: readonly ConnectFlag['role'][]) =>
  CONNECTOR_MODULES.flatMap((module) =>
    module.connect.flags.filter((flag) => roles.includes(flag.role)).map((flag) => flag.name),
  );

/**
 * Every flag of `connect` and `disconnect`: the brand, each platform's address and account flags, the
 * secret flags, then the collection, the channel, the name and the OAuth switch.
 */
export const CONNECT_FLAGS: readonly string[] = unique([
  'brand',
  ...ownFlags(['endpoint', 'account']),
  ...ownFlags(['secret']),
  'collection',
  'channel',
  'name',
  ...(APP_MODULES.length > 0 ? OAUTH_APP_FLAGS : []),
  ...(LOGIN_MODULES.length > 0 ? [LOGIN_FLAG] : []),
  ...(OAUTH_MODULES.length > 0 ? [PASTE_CODE_FLAG] : []),
]);

/** node:util parseArgs options of those flags. */
export const CONNECT_OPTIONS: Readonly<
  Record<string, { type: 'string'; multiple?: true } | { type: 'boolean' }>
> = Object.fromEntries(
  CONNECT_FLAGS.map((name) => {
    if (name === PASTE_CODE_FLAG) return [name, { type: 'boolean' }];
    return [name, name === 'collection' ? { type: 'string', multiple: true } : { type: 'string' }];
  }),
);

/** Whether `connect <module>` takes the flag. */
export function takesFlag(module: ConnectorModule, flag: string): boolean {
  if ((SHARED_CONNECT_FLAGS as readonly string[]).includes(flag)) return true;
  if (flag === PASTE_CODE_FLAG) return module.oauth !== undefined;
  if (flag === LOGIN_FLAG) return module.logins !== undefined;
  if ((OAUTH_APP_FLAGS as readonly string[]).includes(flag) && module.app !== undefined) return true;
  return module.connect.flags.some((own) => own.name === flag);
}

const INDENT = ' '.repeat(29);
const WIDTH = 107;

/** Words of `text` in lines of at most WIDTH characters, each after the help's indent. */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : `${INDENT}${word}`;
    if (next.length > WIDTH && line) {
      lines.push(line);
      line = `${INDENT}${word}`;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** The usage line of one platform's `connect`; `pad` aligns the platforms' names. */
function usageLine(module: ConnectorModule, pad: number): string {
  const flags = module.connect.flags.map((flag) => {
    const shown = `--${flag.name} ${flag.value}`;
    return flag.required ? shown : `[${shown}]`;
  });
  return `  social-publisher-mcp connect ${module.kind.padEnd(pad)} --brand B ${flags.join(' ')} [--collection C]...`;
}

/** The line of the platforms signed in with the operator's app (product.md's contract). */
const APP_USAGE = [
  '  social-publisher-mcp connect <oauth-platform> --brand B [--collection C]... [--account ID_OR_NAME] [--name N]',
  `${INDENT}[--redirect-uri URI] [--paste-code] [--auth-root URL] [--api-root URL]`,
];

/** What `--help` says of `connect`: one line per platform, then what they share. */
export function connectUsage(): string {
  const own = CONNECTOR_MODULES.filter((module: ConnectorModule) => module.app === undefined);
  const pad = Math.max(...own.map((module) => module.kind.length));
  const oauth = OAUTH_MODULES.filter((module: ConnectorModule) => module.app === undefined)
    .map((module) => module.displayName)
    .join(' or ');
  const also = [
    "Also: --name NAME (the channel's name)",
    ...(oauth ? [`--${PASTE_CODE_FLAG} (${oauth} sign-in without a browser redirect to this machine)`] : []),
  ].join(', ');
  const apps = APP_MODULES.map((module) => module.kind);
  return [
    ...own.map((module) => usageLine(module, pad)),
    ...(apps.length > 0 ? APP_USAGE : []),
    ...(apps.length > 0
      ? wrap(
          `<oauth-platform>: ${apps.join(', ')}; signed in in a browser with the operator's app (SOCIAL_PUBLISHER_<APP>_CLIENT_ID and _CLIENT_SECRET, or DATA_DIR/apps.json).`,
        )
      : []),
    ...LOGIN_MODULES.flatMap((module: ConnectorModule) =>
      wrap(
        `connect ${module.kind} also takes --${LOGIN_FLAG} ${loginNames(module).join('|')} (default ${module.logins!.default}): which sign-in, each with its own app.`,
      ),
    ),
    ...wrap(
      'verify an account and connect it as a channel of the brand (prints the channel as JSON); without --*-env the secret is asked for on the terminal, unechoed.',
    ),
    ...wrap(also),
  ].join('\n');
}
