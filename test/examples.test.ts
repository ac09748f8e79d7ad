/**
 * The examples work: the agent script runs the whole flow against a fresh store and lists its post back;
 * curl.sh runs against a real serve and stops, with a message, on a wrong key.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWorkspaceFile } from '../src/service/workspace.js';
import { childEnv, cleanup, requireBuild, startServe, tempDir } from './mcp/cli-harness.js';

const root = join(import.meta.dirname, '..');

it('examples/agent.ts lists brands, uploads, schedules and lists its post back', async () => {
  expect(existsSync(join(root, 'dist', 'main.js')), 'run npm run build first').toBe(true);
  const dataDir = mkdtempSync(join(tmpdir(), 'spm-agent-'));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'examples', 'agent.ts')],
      { env: { ...process.env, SOCIAL_PUBLISHER_DATA_DIR: dataDir }, timeout: 60_000 },
    );
    expect(stdout).toContain('→ upload_media: Uploaded media med_');
    expect(stdout).toMatch(/Scheduled post \d+: scheduled for \d{4}-\d{2}-\d{2} 09:00:00 America\/New_York/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 90_000);

it('examples/workspace.json is a valid workspace file', () => {
  const file = JSON.parse(readFileSync(join(root, 'examples', 'workspace.json'), 'utf8'));
  expect(parseWorkspaceFile(file).brands?.[0]?.title).toBe('Acme');
});

describe('examples/curl.sh against serve', () => {
  afterEach(cleanup);

  /** Runs the script from an empty directory (it must need no file of its own) with `env`. */
  function curlSh(env: Record<string, string>) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'bash',
        [join(root, 'examples', 'curl.sh')],
        { cwd: tempDir('spm-curl-cwd-'), env: childEnv(env), timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  const get = async (url: string, key: string) =>
    (await (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      data: Record<string, unknown> & Array<Record<string, unknown>>;
    };

  it('uploads its own image, schedules a post for tomorrow 09:00 in the brand’s timezone, and exits 0', async () => {
    requireBuild();
    const serve = await startServe();
    const run = await curlSh({
      SOCIAL_PUBLISHER_API_URL: `${serve.url}/v1`,
      SOCIAL_PUBLISHER_API_KEY: serve.key,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const scheduled = /Scheduled post (\d+) for (\d{4}-\d{2}-\d{2}) 09:00:00 America\/New_York/.exec(
      run.stdout,
    );
    expect(scheduled, run.stdout).not.toBeNull();
    const media = /Uploaded media (med_\S+)/.exec(run.stdout)![1];

    const post = (await get(`${serve.url}/v1/brands/1/posts/${scheduled![1]}`, serve.key)).data;
    expect(post).toMatchObject({
      status: 'scheduled',
      scheduledAt: `${scheduled![2]} 09:00:00`,
      content: { caption: 'Fresh roast (examples/curl.sh)', media: [{ id: media }] },
    });
    // Tomorrow in New York, whatever the time of day here.
    const tomorrow = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(
      new Date(Date.now() + 86_400_000),
    );
    expect(scheduled![2]).toBe(tomorrow);
    expect(Date.parse(post.dueAt as string)).toBeGreaterThan(Date.now());
    // The Idempotency-Key made one queued post, not two.
    const posts = (await get(`${serve.url}/v1/brands/1/posts`, serve.key)).data;
    expect(posts.map((p) => p.status).sort()).toEqual(['queued', 'scheduled']);
  }, 90_000);

  it('stops with a message naming the problem: a wrong key, no server, no key', async () => {
    requireBuild();
    const serve = await startServe();
    const wrongKey = await curlSh({
      SOCIAL_PUBLISHER_API_URL: `${serve.url}/v1`,
      SOCIAL_PUBLISHER_API_KEY: 'spk_not-the-key-0123456789',
    });
    expect(wrongKey.code).not.toBe(0);
    expect(wrongKey.stderr).toBe(
      `curl.sh: GET ${serve.url}/v1/me: 401, the server refused the API key. Check SOCIAL_PUBLISHER_API_KEY (a key of your user on that server; "keys list" shows them, "keys create --user NAME" makes one) and SOCIAL_PUBLISHER_API_URL.\n`,
    );
    expect(wrongKey.stdout).toBe('');
    expect((await get(`${serve.url}/v1/brands/1/posts`, serve.key)).data).toEqual([]);

    const noServer = await curlSh({
      SOCIAL_PUBLISHER_API_URL: 'http://127.0.0.1:9/v1',
      SOCIAL_PUBLISHER_API_KEY: 'x',
    });
    expect(noServer.code).not.toBe(0);
    expect(noServer.stderr).toContain(
      'curl.sh: GET http://127.0.0.1:9/v1/me: no answer (is serve running there?',
    );

    const noKey = await curlSh({});
    expect(noKey.code).not.toBe(0);
    expect(noKey.stderr).toContain('curl.sh: set SOCIAL_PUBLISHER_API_KEY to your API key');
  }, 60_000);
});
