/**
 * manifest.json, the MCP Bundle's: its tools are the registry's, it matches package.json, it needs a
 * Node with node:sqlite, and its settings (`user_config`) are exactly server.json's environment
 * variables (test/support/settings-read.ts: the ones a person running the stdio server sets), each
 * passed to the server once under its variable, with secrets marked alike in both files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../src/mcp/registry.js';
import { SETTINGS_OFFERED } from './support/settings-read.js';

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const server = JSON.parse(readFileSync(join(root, 'server.json'), 'utf8'));

interface Setting {
  type: string;
  title: string;
  description: string;
  sensitive?: boolean;
  default?: unknown;
}
interface EnvironmentVariable {
  name: string;
  isSecret: boolean;
  format?: string;
}
const userConfig = manifest.user_config as Record<string, Setting>;
const env = manifest.server.mcp_config.env as Record<string, string>;
const variables = server.packages[0].environmentVariables as EnvironmentVariable[];
/** The user_config key a variable is given: `${user_config.KEY}`. */
const keyOf = (name: string) => env[name]?.match(/^\$\{user_config\.(\w+)\}$/)?.[1];

describe('manifest.json (MCP Bundle)', () => {
  it('lists exactly the registered tools', () => {
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
  });

  it('matches package.json and starts the built entry point', () => {
    expect(manifest.name).toBe(pkg.name);
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.server.entry_point).toBe('dist/main.js');
    expect(pkg.bin['social-publisher-mcp']).toBe('dist/main.js');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the bundle host expands this placeholder.
    expect(manifest.server.mcp_config.args).toEqual(['${__dirname}/dist/main.js']);
  });

  it('requires a Node with node:sqlite, so the bundle needs no native addon', () => {
    expect(manifest.compatibility.runtimes.node).toBe('>=22.13.0');
    expect(pkg.optionalDependencies['@photostructure/sqlite']).toBeDefined();
    expect(pkg.dependencies['@photostructure/sqlite']).toBeUndefined();
  });

  it("passes each setting once, under its variable: exactly server.json's variables", () => {
    expect(Object.keys(env).sort()).toEqual(SETTINGS_OFFERED);
    expect(Object.keys(env).sort()).toEqual(variables.map((variable) => variable.name).sort());
    const keys = Object.keys(env).map(keyOf);
    expect(keys.every((key) => key !== undefined)).toBe(true);
    expect(keys.sort()).toEqual(Object.keys(userConfig).sort());
  });

  it('marks the secrets as server.json does, and types each setting as the program reads it', () => {
    for (const variable of variables) {
      const setting = userConfig[keyOf(variable.name)!]!;
      expect(setting.sensitive ?? false, variable.name).toBe(variable.isSecret);
      const type = { boolean: 'boolean', filepath: 'directory' }[variable.format ?? ''] ?? 'string';
      expect(setting.type, variable.name).toBe(type);
      if (type === 'boolean') expect(setting.default, variable.name).toBe(false);
      expect(setting.title.length, variable.name).toBeGreaterThan(3);
      expect(setting.description.length, variable.name).toBeGreaterThan(20);
    }
    expect(userConfig.api_key?.sensitive).toBe(true);
    expect(userConfig.read_only).toMatchObject({ type: 'boolean', default: false });
  });
});
