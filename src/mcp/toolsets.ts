/**
 * Which tools a server offers: all of them by default; only the read-only ones
 * (`SOCIAL_PUBLISHER_READ_ONLY=1`); only some toolsets (`SOCIAL_PUBLISHER_TOOLSETS=workspace,lifecycle`);
 * or both at once. The tools left out are not listed, and a call to one is refused with the setting
 * that left it out. Names only here: the configuration reads them before any tool is loaded.
 */

/** Each toolset and what it is for; every tool file names its own. */
export const TOOLSETS = {
  workspace: 'profile, brands, channels and collections (read-only)',
  media: 'upload_media',
  posting: 'create_post',
  lifecycle: 'list, read, change, publish and cancel posts; the queue',
  connections: 'connect_channel: an account signed in on its platform, from the conversation',
} as const;

export type Toolset = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];

export interface ToolSelection {
  /** Only tools whose readOnlyHint is true. */
  readOnly: boolean;
  /** Only tools of these toolsets; undefined: every toolset. */
  toolsets?: readonly Toolset[];
}

export const ALL_TOOLS: ToolSelection = { readOnly: false };

interface SelectableTool {
  name: string;
  toolset: Toolset;
  annotations: { readOnlyHint: boolean };
}

/** Why `tool` is left out, naming the setting; undefined when it is offered. */
export function whyUnavailable(tool: SelectableTool, selection: ToolSelection): string | undefined {
  if (selection.readOnly && !tool.annotations.readOnlyHint) {
    return `${tool.name} is not available: this server is read-only (SOCIAL_PUBLISHER_READ_ONLY=1), so it can read brands, channels, posts and queues but not change them.`;
  }
  if (selection.toolsets && !selection.toolsets.includes(tool.toolset)) {
    return `${tool.name} is not available: it belongs to the ${tool.toolset} toolset, and this server offers ${selection.toolsets.join(', ')} (SOCIAL_PUBLISHER_TOOLSETS).`;
  }
  return undefined;
}

export function selectTools<T extends SelectableTool>(tools: readonly T[], selection: ToolSelection): T[] {
  return tools.filter((tool) => whyUnavailable(tool, selection) === undefined);
}

/** `1`/`true`/`yes` or `0`/`false`/`no` (a bundle's boolean setting arrives as `true` or `false`). */
export function parseReadOnly(text: string | undefined): boolean {
  if (text === undefined) return false;
  const value = text.trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(value)) return true;
  if (['0', 'false', 'no', ''].includes(value)) return false;
  throw new Error(`SOCIAL_PUBLISHER_READ_ONLY must be 1 or 0 (or true or false), not "${text}".`);
}

/** A comma-separated list of toolset names; empty or `all`: every toolset. */
export function parseToolsets(text: string | undefined): Toolset[] | undefined {
  const names = (text ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0 || names.includes('all')) return undefined;
  const unknown = names.filter((name) => !(name in TOOLSETS));
  if (unknown.length > 0) {
    throw new Error(
      `SOCIAL_PUBLISHER_TOOLSETS: unknown toolset ${unknown.map((name) => `"${name}"`).join(', ')}; the toolsets are ${TOOLSET_NAMES.join(', ')} (or all).`,
    );
  }
  return TOOLSET_NAMES.filter((name) => names.includes(name));
}
