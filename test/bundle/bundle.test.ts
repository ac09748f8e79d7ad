/**
 * The MCP Bundle, end to end: builds it with scripts/bundle.mjs (once, into a temp dir), checks it with
 * `mcpb validate`, unpacks it with `mcpb unpack`, and starts the unpacked server the way Claude Desktop
 * does: its own Node >= 22.13 (node:sqlite, so no native addon), the manifest's mcp_config with
 * ${__dirname} and the user_config placeholders filled in, over stdio.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/registry.js';
import { node22 } from '../support/node22.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE_SCRIPT = join(ROOT, 'scripts', 'bundle.mjs');
const MCPB_CLI = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const CHILD_TIMEOUT_MS = 20_000;
/** A stack trace frame ("    at fn (file:line:col)"). */
const STACK_FRAME = /^\s+at\s+\S.*[:(]/m;

interface Manifest {
  name: string;
  version: string;
  server: {
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  tools: Array<{ name: string }>;
  prompts: Array<{ name: string; arguments: string[] }>;
  icon: string;
  user_config: Record<string, { type: string; sensitive?: boolean }>;
  compatibility: { runtimes: { node: string } };
}

let work: string;
let bundleFile: string;
let unpacked: string;
let manifest: Manifest;
let node: string;
let buildLog: string;

/** Every file under `dir`, relative to it, with forward slashes. */
function files(dir: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else out.push(relative(dir, full).split('\\').join('/'));
    }
  };
  visit(dir);
  return out;
}

async function mcpb(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MCPB_CLI, ...args], { cwd: work });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      output: `${failed.stdout}${failed.stderr}`,
    };
  }
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
    throw new Error('dist/main.js is missing: run "npm run build" first (npm test builds before vitest).');
  }
  work = mkdtempSync(join(tmpdir(), 'spm-bundle-'));
  bundleFile = join(work, 'out', 'social-publisher-mcp.mcpb');
  node = node22();
  try {
    const built = await run(
      process.execPath,
      [BUNDLE_SCRIPT, '--stage', join(work, 'stage'), '--out', bundleFile],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
    buildLog = built.stderr;
    expect(built.stdout.trim()).toBe(bundleFile);
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`scripts/bundle.mjs failed: ${failed.message}\n${failed.stdout}\n${failed.stderr}`);
  }
  unpacked = join(work, 'unpacked');
  const unpack = await mcpb('unpack', bundleFile, unpacked);
  expect(unpack.code, unpack.output).toBe(0);
  manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm run bundle (scripts/bundle.mjs)', () => {
  it('validates the manifest with mcpb first, and mcpb validate rejects a broken one', async () => {
    expect(buildLog).toMatch(/mcpb validate manifest\.json\s+Manifest schema validation passes!/);
    const valid = await mcpb('validate', join(ROOT, 'manifest.json'));
    expect(valid.code, valid.output).toBe(0);
    const bundled = await mcpb('validate', join(unpacked, 'manifest.json'));
    expect(bundled.code, bundled.output).toBe(0);

    // The same check fails a manifest whose sensitive setting has an unknown type.
    const broken = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as Manifest;
    broken.user_config.api_key!.type = 'secret';
    writeFileSync(join(work, 'broken.json'), JSON.stringify(broken));
    const invalid = await mcpb('validate', join(work, 'broken.json'));
    expect(invalid.code).not.toBe(0);
  });

  it('packs the manifest, the README and the bundled program, with no node_modules', async () => {
    const { CHUNKS } = (await import(pathToFileURL(join(ROOT, 'scripts', 'chunks.mjs')).href)) as {
      CHUNKS: Record<string, string>;
    };
    const root = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest).toEqual(root);
    const all = files(unpacked);
    expect(all).toEqual(
      expect.arrayContaining([
        'manifest.json',
        'package.json',
        'README.md',
        'assets/icon.png',
        'dist/main.js',
        'dist/program.cjs',
      ]),
    );
    // The entry, the program it runs and the chunks the program requires when first used
    // (scripts/build.mjs), and nothing else of ours to load.
    expect(all.filter((file) => /^dist\/.*\.(c?js|mjs)$/.test(file)).sort()).toEqual(
      [
        'dist/main.js',
        'dist/program.cjs',
        ...Object.values(CHUNKS).map((chunk) => `dist/chunks/${chunk}.cjs`),
      ].sort(),
    );
    expect(all.filter((file) => /^dist\/.*\.map$/.test(file))).toEqual([]);
    // The icon the manifest names, as committed (test/bundle/icon.test.ts checks it is the server's).
    expect(readFileSync(join(unpacked, manifest.icon))).toEqual(readFileSync(join(ROOT, manifest.icon)));
    // Every dependency is inside the bundled program: no node_modules at all.
    expect(all.filter((file) => file.startsWith('node_modules/'))).toEqual([]);
    const runtime = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(runtime.dependencies).toBeUndefined();
  });

  it('has chunks that load without node_modules and work as the packages the program imports', async () => {
    // Each chunk's exports as the program imports them (src/), used once: a chunk that needed a
    // package from node_modules, or exported the wrong thing, fails here, in a bundle that has none.
    const script = `
      const chunk = (name) => require('./dist/chunks/' + name + '.cjs');
      const { Agent, FormData, request } = chunk('undici');
      const { AtpAgent, RichText } = chunk('atproto-api');
      const { fileTypeFromBuffer } = chunk('file-type');
      const busboy = chunk('busboy');
      const { AjvJsonSchemaValidator } = chunk('ajv');
      (async () => {
        const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
        const form = new FormData();
        form.append('a', 'b');
        const parser = busboy({ headers: { 'content-type': 'multipart/form-data; boundary=x' } });
        const check = new AjvJsonSchemaValidator().getValidator({ type: 'object', required: ['n'] });
        console.log(JSON.stringify({
          agent: typeof new Agent().dispatch,
          request: typeof request,
          form: form.get('a'),
          atp: typeof AtpAgent,
          graphemes: new RichText({ text: 'h\u00e9llo \u{1F44B}' }).graphemeLength,
          type: (await fileTypeFromBuffer(png))?.mime,
          busboy: typeof parser.on,
          valid: [check({ n: 1 }).valid, check({}).valid],
        }));
      })();
    `;
    const { stdout } = await run(node, ['-e', script], { cwd: unpacked, timeout: CHILD_TIMEOUT_MS });
    expect(JSON.parse(stdout)).toEqual({
      agent: 'function',
      request: 'function',
      form: 'b',
      atp: 'function',
      graphemes: 7,
      type: 'image/png',
      busboy: 'function',
      valid: [true, false],
    });
  });

  it('carries no native addon: no .node file, no node-gyp artifact, no SQLite addon package', async () => {
    const all = files(unpacked);
    expect(all.length).toBeGreaterThan(4);
    expect(all.filter((file) => file.endsWith('.node'))).toEqual([]);
    expect(all.filter((file) => /(^|\/)(binding\.gyp|build\/Release\/|prebuilds\/)/.test(file))).toEqual([]);
    expect(all.filter((file) => /better-sqlite3|@photostructure/.test(file))).toEqual([]);
    expect(all.filter((file) => /(^|\/)bindings\//.test(file))).toEqual([]);
    // And the script's own guard, which refuses to pack one, finds them.
    const { nativeArtifacts } = (await import(pathToFileURL(BUNDLE_SCRIPT).href)) as {
      nativeArtifacts: (dir: string) => string[];
    };
    const fake = join(work, 'fake-addon');
    mkdirSync(join(fake, 'node_modules', 'addon', 'build', 'Release'), { recursive: true });
    writeFileSync(join(fake, 'node_modules', 'addon', 'binding.gyp'), '{}');
    writeFileSync(join(fake, 'node_modules', 'addon', 'build', 'Release', 'addon.node'), '');
    writeFileSync(join(fake, 'node_modules', 'addon', 'lib.node'), '');
    expect(nativeArtifacts(join(unpacked))).toEqual([]);
    expect(nativeArtifacts(fake).sort()).toEqual(
      [
        'node_modules/addon/binding.gyp',
        'node_modules/addon/build/Release',
        'node_modules/addon/lib.node',
      ].map((path) => path.split('/').join(process.platform === 'win32' ? '\\' : '/')),
    );
  });

  it("lists exactly the registry's tools and targets a Node with node:sqlite", () => {
    expect(manifest.tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(manifest.tools).toHaveLength(14);
    expect(manifest.compatibility.runtimes.node).toBe('>=22.13.0');
    expect(manifest.user_config.api_key?.sensitive).toBe(true);
    const bundledPkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(bundledPkg).toMatchObject({ name: manifest.name, version: manifest.version, type: 'module' });
    expect(bundledPkg.optionalDependencies).toBeUndefined();
  });
});

interface Session {
  client: Client;
  stderr: () => string;
  startMs: number;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

/** Starts the unpacked server as Claude Desktop does: the manifest's command line and env, filled in. */
async function startBundled(
  userConfig: Record<string, string | undefined>,
  extraEnv: Record<string, string> = {},
) {
  const { command, args, env } = manifest.server.mcp_config;
  expect(command).toBe('node');
  const fill = (value: string) =>
    value
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the bundle host expands this placeholder.
      .replaceAll('${__dirname}', unpacked)
      .replace(/\$\{user_config\.(\w+)\}/g, (placeholder, key: string) => userConfig[key] ?? placeholder);
  const transport = new StdioClientTransport({
    command: node,
    args: args.map(fill),
    env: {
      ...Object.fromEntries(Object.entries(env).map(([key, value]) => [key, fill(value)])),
      ...extraEnv,
    },
    cwd: mkdtempSync(join(work, 'cwd-')),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'bundle-test', version: '1.0.0' });
  const started = performance.now();
  try {
    await client.connect(transport, { timeout: CHILD_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`connecting failed: ${(error as Error).message}; server stderr: ${stderr}`);
  }
  const session: Session = {
    client,
    stderr: () => stderr,
    startMs: performance.now() - started,
    call: async (name, callArgs = {}) =>
      (await client.callTool({ name, arguments: callArgs }, undefined, {
        timeout: CHILD_TIMEOUT_MS,
      })) as CallToolResult,
  };
  return session;
}

const titles = (result: CallToolResult) =>
  (result.structuredContent as { data: Array<{ title: string }> }).data.map((brand) => brand.title);

describe('the unpacked bundle, started like Claude Desktop starts it', () => {
  it("serves the 14 tools and the manifest's prompts over stdio on node:sqlite, its data in user_config.data_dir", async () => {
    const dataDir = mkdtempSync(join(work, 'data-'));
    // api_url and api_key unset: the host passes their placeholders through unexpanded.
    const session = await startBundled({ data_dir: dataDir });
    try {
      console.log(`bundled server on ${node}: initialized in ${session.startMs.toFixed(0)} ms`);
      expect(session.client.getServerVersion()).toMatchObject({
        name: manifest.name,
        version: manifest.version,
      });

      const listed = await session.client.listTools(undefined, { timeout: CHILD_TIMEOUT_MS });
      expect(listed.tools.map((tool) => tool.name)).toEqual(manifest.tools.map((tool) => tool.name));
      expect(listed.tools).toHaveLength(14);

      // The prompts the manifest shows are the server's, with their arguments.
      const prompts = await session.client.listPrompts(undefined, { timeout: CHILD_TIMEOUT_MS });
      expect(
        prompts.prompts.map((prompt) => ({
          name: prompt.name,
          arguments: (prompt.arguments ?? []).map((argument) => argument.name),
        })),
      ).toEqual(manifest.prompts.map(({ name, arguments: names }) => ({ name, arguments: names })));

      const brands = await session.call('list_brands');
      expect(brands.isError ?? false).toBe(false);
      expect(titles(brands)).toEqual(['Northwind Coffee', 'Kite & Key Studio']);

      const year = new Date().getUTCFullYear() + 1;
      const created = await session.call('create_post', {
        brandId: 1,
        collectionId: 1,
        publishMode: 'SCHEDULE',
        caption: 'Bundled summer blend',
        scheduledAt: `${year}-06-15 10:30:00`,
      });
      expect(created.isError ?? false, JSON.stringify(created.structuredContent)).toBe(false);
      const id = (created.structuredContent as { data: { id: number } }).data.id;
      const post = await session.call('get_post', { brandId: 1, postId: id });
      expect(post.isError ?? false, JSON.stringify(post.structuredContent)).toBe(false);
      expect(JSON.stringify(post.structuredContent)).toContain(`${year}-06-15T14:30:00`);
    } finally {
      await session.client.close();
    }
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);
    expect(session.stderr()).not.toMatch(STACK_FRAME);
    expect(session.stderr()).not.toMatch(/ExperimentalWarning|SQLite is an experimental/i);
    expect(session.stderr()).not.toMatch(/better-sqlite3|@photostructure/);
  });

  it('passes the settings to the server: read-only offers only the tools that change nothing', async () => {
    const session = await startBundled({ data_dir: mkdtempSync(join(work, 'data-')), read_only: 'true' });
    try {
      const listed = await session.client.listTools(undefined, { timeout: CHILD_TIMEOUT_MS });
      const readOnly = TOOLS.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name);
      expect(readOnly.length).toBeGreaterThan(3);
      expect(readOnly.length).toBeLessThan(TOOLS.length);
      expect(listed.tools.map((tool) => tool.name)).toEqual(readOnly);
    } finally {
      await session.client.close();
    }
  });

  it('refuses a half-set bucket at the start with a message that names what is missing', async () => {
    const session = startBundled({
      data_dir: mkdtempSync(join(work, 'data-')),
      media_s3_bucket: 'acme-media',
      media_s3_access_key_id: 'AKIAEXAMPLE',
    });
    // The start-up failure answers initialize with its reason (README, Troubleshooting).
    await expect(session).rejects.toThrow(/SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY/);
  });

  it('with every setting left empty, uses the per-user data directory', async () => {
    const home = mkdtempSync(join(work, 'home-'));
    const session = await startBundled(
      { data_dir: '', api_url: '', api_key: '' },
      { HOME: home, USERPROFILE: home, LOCALAPPDATA: join(home, 'AppData', 'Local') },
    );
    try {
      expect(titles(await session.call('list_brands'))).toEqual(['Northwind Coffee', 'Kite & Key Studio']);
    } finally {
      await session.client.close();
    }
    expect(files(home).some((file) => file.includes('social-publisher-mcp/'))).toBe(true);
    expect(session.stderr()).not.toMatch(STACK_FRAME);
    expect(session.stderr()).not.toMatch(/ExperimentalWarning/);
  });
});
