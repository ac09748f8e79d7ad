/** The examples work: the agent script runs the whole flow against a fresh store and lists its post back. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { parseWorkspaceFile } from '../src/service/workspace.js';

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
