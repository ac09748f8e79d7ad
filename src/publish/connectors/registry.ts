/**
 * The one list of platforms with a connector of their own. Every other list of them is derived from it
 * here (the kinds, the channel type each publishes as, which deduplicate, the openers) or from it
 * elsewhere (connect-flags.ts: the `connect` flags and usage; schemas.ts: get_channel's and the
 * workspace file's schemas; the README check in test/publish/connector-registry.test.ts). Adding a
 * platform is its folder and one line in CONNECTOR_MODULES.
 *
 * Loaded before anything else (the command line is parsed with it): it and the descriptors import
 * nothing but types; each connector's code loads only when used (`load`, `connect.verify`, `oauth`).
 */
import type { ChannelType } from '../../domain/schemas.js';
import { bluesky } from './bluesky/index.js';
import { facebook } from './facebook/index.js';
import { googlebusiness } from './googlebusiness/index.js';
import { linkedin } from './linkedin/index.js';
import { mastodon } from './mastodon/index.js';
import type { ConnectorModule } from './module.js';
import { pinterest } from './pinterest/index.js';
import { telegram } from './telegram/index.js';
import { threads } from './threads/index.js';
import { tiktok } from './tiktok/index.js';
import { x } from './x/index.js';

/** In the order help, errors and docs list them. */
export const CONNECTOR_MODULES = [
  mastodon,
  bluesky,
  telegram,
  linkedin,
  x,
  facebook,
  threads,
  googlebusiness,
  pinterest,
  tiktok,
] as const;

/** A platform with a connector of its own: `mastodon`, `bluesky`, `telegram`, `linkedin`, `x`, `facebook`,
 * `threads`, `googlebusiness`, `pinterest`, `tiktok`. */
export type ConnectedKind = (typeof CONNECTOR_MODULES)[number]['kind'];

/** The publishers of every channel without a connection; the operator configures one of them. */
export const DEFAULT_PUBLISHERS = ['sandbox', 'webhook'] as const;
export type DefaultPublisher = (typeof DEFAULT_PUBLISHERS)[number];

/** Who sends a channel's posts: get_channel's `connector`. */
export type ConnectorKind = DefaultPublisher | ConnectedKind;

export const CONNECTED_KINDS = CONNECTOR_MODULES.map((module) => module.kind) as unknown as readonly [
  ConnectedKind,
  ...ConnectedKind[],
];

export const CONNECTOR_KINDS: readonly [ConnectorKind, ...ConnectorKind[]] = [
  ...DEFAULT_PUBLISHERS,
  ...CONNECTED_KINDS,
];

const byKind = new Map<string, ConnectorModule<ConnectedKind>>(
  CONNECTOR_MODULES.map((module) => [module.kind, module]),
);

/** The channel type each platform's connector publishes as. */
export const CONNECTED_PLATFORMS = Object.fromEntries(
  CONNECTOR_MODULES.map((module) => [module.kind, module.channelType]),
) as Readonly<Record<ConnectedKind, ChannelType>>;

/** Whether each platform's connector deduplicates a repeated send, known without loading it. */
export const IDEMPOTENT_PLATFORMS = Object.fromEntries(
  CONNECTOR_MODULES.map((module) => [module.kind, module.idempotent]),
) as Readonly<Record<ConnectedKind, boolean>>;

export function isConnectedKind(kind: string): kind is ConnectedKind {
  return byKind.has(kind);
}

/** The module of a platform; throws for a kind the registry does not list (a row of a newer program). */
export function connectorModule(kind: ConnectedKind): ConnectorModule<ConnectedKind> {
  const module = byKind.get(kind);
  if (!module) throw new Error(`No connector for "${kind}" in this version of social-publisher-mcp.`);
  return module;
}

/** "mastodon, bluesky or telegram": the kinds as a sentence lists them. */
export function connectedKindList(conjunction = 'or'): string {
  const kinds = [...CONNECTED_KINDS];
  const last = kinds.pop();
  return kinds.length > 0 ? `${kinds.join(', ')} ${conjunction} ${last}` : (last ?? '');
}
