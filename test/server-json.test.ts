/**
 * server.json, the entry for the MCP Registry: valid against the 2025-12-11 server.json rules
 * (test/fixtures/mcp-registry-server.schema.json, with ajv), in step with package.json (version,
 * `mcpName`, the npm package), and truthful about the settings: each variable it lists is one the program
 * reads, every variable read is listed or left out for a stated reason (test/support/settings-read.ts),
 * secrets are marked, nothing is required (the program starts with none), and a stated default is the
 * program's own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { NOT_OFFERED_BY_INSTALLS, SETTINGS_OFFERED, SETTINGS_READ } from './support/settings-read.js';

const root = join(import.meta.dirname, '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

interface EnvironmentVariable {
  name: string;
  description: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: string;
  default?: string;
}
interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  repository: { url: string; source: string };
  packages: Array<{
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    environmentVariables: EnvironmentVariable[];
  }>;
  remotes?: unknown[];
}

const server = readJson('server.json') as ServerJson;
const pkg = readJson('package.json') as { name: string; version: string; mcpName?: string };
const schema = readJson('test/fixtures/mcp-registry-server.schema.json') as { $comment: string };
// ajv-formats is CommonJS with its plugin as `default`; ajv and it come with the SDK (a devDependency).
const addFormats = ajvFormats as unknown as { default: (ajv: Ajv) => Ajv };
const validate = addFormats.default(new Ajv({ allErrors: true })).compile(schema);
const npm = server.packages.find((entry) => entry.registryType === 'npm')!;
const variables = npm.environmentVariables;

describe('server.json (MCP Registry)', () => {
  it('is valid against the server.json rules of the schema version it names', () => {
    const valid = validate(server);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
    expect(server.$schema).toBe(
      'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    );
    expect(schema.$comment).toContain(server.$schema);
  });

  it('the check is not vacuous: the schema refuses what the registry refuses', () => {
    const broken = (change: (copy: ServerJson) => void) => {
      const copy = structuredClone(server);
      change(copy);
      return validate(copy);
    };
    expect(broken((copy) => (copy.description = 'x'.repeat(101)))).toBe(false);
    expect(broken((copy) => (copy.name = 'social-publisher-mcp'))).toBe(false);
    expect(broken((copy) => (copy.packages[0]!.version = 'latest'))).toBe(false);
    expect(broken((copy) => (copy.packages[0]!.transport = { type: 'http' }))).toBe(false);
    expect(broken((copy) => delete (copy as Partial<ServerJson>).version)).toBe(false);
  });

  it('agrees with package.json: version, mcpName, and the npm package it points to', () => {
    expect(server.version).toBe(pkg.version);
    expect(pkg.mcpName).toBe(server.name);
    expect(server.packages).toHaveLength(1);
    expect(npm).toMatchObject({
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: 'stdio' },
    });
    // A self-hosted `serve` has no fixed address to list.
    expect(server.remotes).toBeUndefined();
  });

  it("names its GitHub namespace once: the name's owner is the repository's", () => {
    const [, owner, project] = server.name.match(/^io\.github\.([^/]+)\/(.+)$/) ?? [];
    expect(project).toBe(pkg.name);
    expect(server.repository).toEqual({ url: `https://github.com/${owner}/${pkg.name}`, source: 'github' });
  });

  it('lists each variable the program reads, except those left out for a reason, once', () => {
    const names = variables.map((variable) => variable.name);
    expect(new Set(names).size).toBe(names.length);
    expect(
      [...names].sort(),
      'a new setting goes in server.json and manifest.json, or in test/support/settings-read.ts with its reason',
    ).toEqual(SETTINGS_OFFERED);
    expect(SETTINGS_OFFERED.length).toBeGreaterThanOrEqual(13);
    for (const name of Object.keys(NOT_OFFERED_BY_INSTALLS)) expect(SETTINGS_READ, name).toContain(name);
  });

  it('marks the secrets, requires nothing, and describes each variable', () => {
    const secrets = variables.filter((variable) => variable.isSecret).map((variable) => variable.name);
    expect(secrets.sort()).toEqual([
      'SOCIAL_PUBLISHER_API_KEY',
      'SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY',
      'SOCIAL_PUBLISHER_WEBHOOK_SECRET',
    ]);
    for (const variable of variables) {
      expect(variable.isRequired, variable.name).toBe(false);
      expect(typeof variable.isSecret, variable.name).toBe('boolean');
      expect(variable.description.length, variable.name).toBeGreaterThan(20);
      expect(variable.description.length, variable.name).toBeLessThanOrEqual(120);
    }
  });

  it("states only the program's own defaults, and booleans the program reads as true and false", () => {
    // Every setting that depends on another present: a bucket, a webhook.
    const base = {
      SOCIAL_PUBLISHER_DATA_DIR: join(root, 'no-such-data-dir'),
      SOCIAL_PUBLISHER_MEDIA_S3_BUCKET: 'acme-media',
      SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY: 'example-secret-access-key',
      SOCIAL_PUBLISHER_WEBHOOK_URL: 'https://hooks.example.com/social',
      SOCIAL_PUBLISHER_WEBHOOK_SECRET: 'a-webhook-secret-of-32-characters',
    };
    const load = (env: Record<string, string>) => JSON.stringify(loadConfig(['stdio'], { ...base, ...env }));
    const withDefaults = variables.filter((variable) => variable.default !== undefined);
    expect(withDefaults.length).toBeGreaterThanOrEqual(3);
    for (const { name, default: value } of withDefaults) {
      expect(load({ [name]: value! }), name).toBe(load({}));
    }
    const booleans = variables.filter((variable) => variable.format === 'boolean');
    expect(booleans.map((variable) => variable.name)).toEqual([
      'SOCIAL_PUBLISHER_READ_ONLY',
      'SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES',
    ]);
    for (const { name } of booleans) {
      expect(load({ [name]: 'false' }), name).toBe(load({}));
      expect(load({ [name]: 'true' }), name).not.toBe(load({}));
    }
  });
});
