import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../src/mcp/registry.js';

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

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

  it('passes the read-only and toolset settings to the server', () => {
    expect(manifest.user_config.read_only).toMatchObject({ type: 'boolean', default: false });
    expect(manifest.user_config.toolsets.type).toBe('string');
    // The bundle host expands these placeholders.
    const setting = (name: string) => `\${user_config.${name}}`;
    expect(manifest.server.mcp_config.env).toMatchObject({
      SOCIAL_PUBLISHER_READ_ONLY: setting('read_only'),
      SOCIAL_PUBLISHER_TOOLSETS: setting('toolsets'),
    });
  });

  it('keeps the API key sensitive', () => {
    expect(manifest.user_config.api_key.sensitive).toBe(true);
  });
});
