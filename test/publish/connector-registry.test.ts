/**
 * The connector registry is the one list of platforms (style.md rule 13): every list that names them
 * is derived from it and checked here against it, so that adding a platform (its folder and one line
 * in CONNECTOR_MODULES) cannot leave a list behind. Also: what `connect` takes and says is the same as
 * product.md's contract, the README names every connector, and no source file outside the connector
 * folders lists the platforms by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { getChannel } from '../../src/mcp/tools/get-channel.js';
import {
  CONNECT_FLAGS,
  CONNECT_OPTIONS,
  connectUsage,
  flagOf,
} from '../../src/publish/connectors/connect-flags.js';
import type { ConnectorModule } from '../../src/publish/connectors/module.js';
import {
  CONNECTED_KINDS,
  CONNECTED_PLATFORMS,
  CONNECTOR_KINDS,
  CONNECTOR_MODULES,
  connectorModule,
  DEFAULT_PUBLISHERS,
  IDEMPOTENT_PLATFORMS,
} from '../../src/publish/connectors/registry.js';
import { ChannelDetail, WorkspaceFile } from '../../src/publish/connectors/schemas.js';
import { USAGE } from '../../src/usage.js';

const root = join(import.meta.dirname, '..', '..');
const kinds = CONNECTOR_MODULES.map((module) => module.kind);

describe('the lists derived from the registry', () => {
  it('name exactly the registered modules, in their order', () => {
    expect(CONNECTED_KINDS).toEqual(kinds);
    expect(CONNECTOR_KINDS).toEqual([...DEFAULT_PUBLISHERS, ...kinds]);
    expect(Object.keys(CONNECTED_PLATFORMS)).toEqual(kinds);
    expect(Object.keys(IDEMPOTENT_PLATFORMS)).toEqual(kinds);
    for (const module of CONNECTOR_MODULES) {
      expect(CONNECTED_PLATFORMS[module.kind]).toBe(module.channelType);
      expect(IDEMPOTENT_PLATFORMS[module.kind]).toBe(module.idempotent);
      expect(connectorModule(module.kind)).toBe(module);
    }
  });

  it("get_channel's connector, the workspace file's connector and get_channel's text", () => {
    const connection = ChannelDetail.shape.connection.shape;
    expect(connection.connector.options).toEqual([...CONNECTOR_KINDS]);
    const channels = WorkspaceFile.shape.brands.unwrap().element.shape.channels.unwrap().element;
    expect(channels.shape.connection.unwrap().shape.connector.options).toEqual(kinds);
    for (const module of CONNECTOR_MODULES) {
      expect(getChannel.description).toContain(module.kind);
      expect(connection.instance.description).toContain(module.describe.address);
    }
  });

  it('a module is plain data with lazy loaders: its opener loads on demand, as idempotent as it says', async () => {
    for (const module of CONNECTOR_MODULES) {
      expect(module.kind).toMatch(/^[a-z][a-z0-9]*$/);
      const open = await module.load();
      const publisher = open(
        {
          kind: module.kind,
          account: 'a',
          accountId: '1',
          endpoint: 'http://127.0.0.1:9',
          profileUrl: null,
          settings: {},
          capabilities: {} as never,
          channelId: 1,
          secret: 's',
        },
        {
          loadMedia: async () => {
            throw new Error('unused');
          },
          saveSecret: async () => {},
          clock: { now: () => 0 },
          log: () => {},
          timeoutMs: 1,
          userAgent: 't',
        },
      );
      expect(publisher.name).toBe(module.kind);
      expect(publisher.idempotent).toBe(module.idempotent);
      await publisher.close?.();
    }
  });
});

describe('connect, from the modules', () => {
  it('each module has an address flag, and flags of one name mean one thing everywhere', () => {
    const roles = new Map<string, string>();
    for (const module of CONNECTOR_MODULES) {
      expect(flagOf(module, 'endpoint'), module.kind).toBeDefined();
      for (const flag of module.connect.flags) {
        expect(roles.get(flag.name) ?? flag.role, flag.name).toBe(flag.role);
        roles.set(flag.name, flag.role);
        expect(CONNECT_FLAGS).toContain(flag.name);
        expect(CONNECT_OPTIONS[flag.name]).toEqual({ type: 'string' });
      }
      // Only an OAuth sign-in may do without asking for the secret on the terminal.
      expect(Boolean(module.oauth) || Boolean(module.connect.secretPrompt), module.kind).toBe(true);
    }
  });

  it("--help's connect lines are product.md's contract: one per platform with its own flags, one for the OAuth apps", () => {
    // product.md, "Command line and environment" (a contract: tests and docs rely on it).
    const contract = [
      'social-publisher-mcp connect mastodon --brand B --instance URL [--token-env VAR] [--collection C]...',
      'social-publisher-mcp connect bluesky  --brand B --handle H [--service URL] [--password-env VAR] [--collection C]...',
      'social-publisher-mcp connect telegram --brand B --chat CHAT [--token-env VAR] [--api-root URL] [--collection C]...',
      'social-publisher-mcp connect <oauth-platform> --brand B [--collection C]... [--account ID_OR_NAME] [--name N]',
    ];
    const usage = connectUsage().split('\n');
    const lines = usage
      .map((line) => line.trim())
      .filter((line) => line.startsWith('social-publisher-mcp connect '));
    const own = CONNECTOR_MODULES.filter((module: ConnectorModule) => module.app === undefined).map(
      (m) => m.kind,
    );
    expect(lines.map((line) => line.split(/ +/)[2])).toEqual([...own, '<oauth-platform>']);
    expect(lines).toEqual(contract);
    // The line after the OAuth line: its other flags, as product.md has them.
    const oauthLine = usage.findIndex((line) => line.includes('<oauth-platform> --brand'));
    expect(usage[oauthLine + 1]!.trim()).toBe(
      '[--redirect-uri URI] [--paste-code] [--auth-root URL] [--api-root URL]',
    );
    const apps = CONNECTOR_MODULES.filter((module: ConnectorModule) => module.app !== undefined).map(
      (m) => m.kind,
    );
    expect(usage.join(' ').replace(/\s+/g, ' ')).toContain(`<oauth-platform>: ${apps.join(', ')};`);
    expect(USAGE).toContain(connectUsage());
    expect(USAGE).toContain(
      "Also: --name NAME (the channel's name), --paste-code (Mastodon sign-in without\n                             a browser redirect to this machine)",
    );
  });

  const parse = (...argv: string[]) => {
    try {
      return loadConfig(['connect', ...argv], { SPM_TOKEN: 'secret-token-123' }).connect;
    } catch (error) {
      if (error instanceof ConfigError) return error.message.split('\n')[0];
      throw error;
    }
  };

  it('reads each platform’s flags as its module declares them, with the messages of before', () => {
    expect(
      parse('mastodon', '--brand', 'Acme', '--instance', 'https://m.example/', '--token-env', 'SPM_TOKEN'),
    ).toEqual({
      platform: 'mastodon',
      brand: 'Acme',
      endpoint: 'https://m.example',
      collections: [],
      redirect: 'loopback',
      secret: 'secret-token-123',
    });
    expect(parse('bluesky', '--brand', 'Acme', '--handle', 'a.bsky.social', '--name', 'Sky')).toEqual({
      platform: 'bluesky',
      brand: 'Acme',
      endpoint: 'https://bsky.social',
      account: 'a.bsky.social',
      name: 'Sky',
      collections: [],
      redirect: 'loopback',
    });
    expect(
      parse('telegram', '--brand', 'Acme', '--chat', '@c', '--collection', 'A', '--collection', 'B'),
    ).toMatchObject({ endpoint: 'https://api.telegram.org', account: '@c', collections: ['A', 'B'] });
    expect(
      parse('mastodon', '--brand', 'A', '--instance', 'https://m.example', '--paste-code'),
    ).toMatchObject({
      redirect: 'paste',
    });
    // Every registered platform, in the registry's order, the last after "or".
    const platforms = `${CONNECTED_KINDS.slice(0, -1).join(', ')} or ${CONNECTED_KINDS.at(-1)}`;
    expect(platforms).toMatch(
      /^mastodon, bluesky, telegram, linkedin, x, facebook, instagram, threads(, \w+)* or \w+$/,
    );
    expect(parse('myspace', '--brand', 'A')).toBe(`connect: unknown platform "myspace"; use ${platforms}.`);
    expect(parse()).toBe(`connect needs the platform: ${platforms}.`);
    // A platform with two sign-ins: --login picks the app, its auth root and its API root.
    expect(parse('instagram', '--brand', 'A', '--login', 'instagram')).toMatchObject({
      login: 'instagram',
      endpoint: 'https://graph.instagram.com',
      authRoot: 'https://www.instagram.com',
    });
    expect(parse('instagram', '--brand', 'A')).toMatchObject({
      endpoint: 'https://graph.facebook.com',
      authRoot: 'https://www.facebook.com',
    });
    expect(parse('x', '--brand', 'A', '--login', 'instagram')).toBe('connect x does not take --login.');
    expect(parse('telegram', '--brand', 'A', '--chat', '@c', '--paste-code')).toBe(
      'connect telegram does not take --paste-code.',
    );
    expect(parse('bluesky', '--brand', 'A', '--handle', 'h', '--instance', 'https://x')).toBe(
      'connect bluesky does not take --instance.',
    );
    expect(parse('mastodon', '--brand', 'A', '--instance', 'https://x', '--channel', 'c')).toBe(
      'connect mastodon does not take --channel.',
    );
    expect(parse('mastodon', '--instance', 'https://x')).toBe(
      "connect mastodon needs --brand (a brand's title or id).",
    );
    expect(parse('mastodon', '--brand', 'A')).toBe('connect mastodon needs --instance URL.');
    expect(parse('telegram', '--brand', 'A')).toBe('connect telegram needs --chat.');
    expect(parse('bluesky', '--brand', 'A', '--handle', 'h', '--service', 'bsky.social')).toBe(
      '--service must be an http(s) URL, not "bsky.social".',
    );
    expect(parse('bluesky', '--brand', 'A', '--handle', 'h', '--password-env', 'SPM_UNSET')).toBe(
      '--password-env names SPM_UNSET, which is not set or is empty.',
    );
    expect(() => loadConfig(['serve', '--chat', '@c'], {})).toThrow(
      /^--chat applies to connect and disconnect only\./,
    );
  });
});

describe('docs', () => {
  it("the README's section on connecting accounts names every registered connector and its command", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Connecting accounts'));
    const connecting = section.slice(0, section.indexOf('\n## ', 1));
    for (const module of CONNECTOR_MODULES) {
      expect(connecting, module.displayName).toContain(`**${module.displayName}**`);
      expect(connecting, module.kind).toContain(`connect ${module.kind} `);
      expect(readme, module.kind).toContain(`social-publisher-mcp connect ${module.kind} `);
    }
  });
});

describe('no list of platforms by hand', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return files(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });
  // The post payload's `platforms.<key>` (http-interface.md's twelve platforms), not the connectors.
  const PAYLOAD_KEYS = 'domain/delivery.ts';

  it('outside the connector folders, no source file names every connector kind', () => {
    const src = join(root, 'src');
    const listing = files(src)
      .map((path) => ({ path: relative(src, path), text: readFileSync(path, 'utf8') }))
      .filter(({ path }) => !path.startsWith('publish/connectors/') && path !== PAYLOAD_KEYS)
      .filter(({ text }) => kinds.every((kind) => new RegExp(`['"\`]${kind}['"\`]`).test(text)))
      .map(({ path }) => path);
    expect(listing).toEqual([]);
  });
});
