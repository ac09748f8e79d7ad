/**
 * `connect <oauth-platform>` as a user runs it on a terminal, for tests of the built program: the
 * operator's app written to DATA_DIR/apps.json, the command run with `--paste-code` against a stand-in
 * that serves the platform's sign-in and API on one origin (`--auth-root`, `--api-root`), the
 * authorization address read from stderr, approved in the "browser" (the stand-in's page redirects at
 * once) and the address it ended on pasted back on stdin.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnMain, tempDir } from '../mcp/cli-harness.js';
import { collect, DEMO_BRAND, programEnv, waitForStderr } from './connected-program.js';

export interface TerminalSignIn {
  /** The `apps.json` key: `GOOGLE`, `THREADS`. */
  app: string;
  client: { clientId: string; clientSecret: string };
  /** `connect`'s platform argument. */
  platform: string;
  /** The stand-in's origin. */
  root: string;
  /** More arguments (`--brand` is the demo brand's unless given). */
  args?: string[];
  /** An existing data directory and its environment; a new one otherwise. */
  dataDir?: string;
  env?: Record<string, string>;
  /** Follows the authorization page; the address the browser ended on. Default: its redirect. */
  approve?: (address: string) => Promise<string>;
}

export interface TerminalSignInResult {
  dataDir: string;
  env: Record<string, string>;
  code: number | null;
  stdout: string;
  stderr: string;
  /** The authorization address the program printed. */
  address: string;
}

async function followRedirect(address: string): Promise<string> {
  const answer = await fetch(address, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location) {
    throw new Error(`The authorization page answered ${answer.status}: ${await answer.text()}`);
  }
  return location;
}

export async function connectOnTerminal(signIn: TerminalSignIn): Promise<TerminalSignInResult> {
  const dataDir = signIn.dataDir ?? tempDir(`spm-${signIn.platform}-`);
  const env = signIn.env ?? programEnv(dataDir);
  writeFileSync(join(dataDir, 'apps.json'), JSON.stringify({ [signIn.app]: signIn.client }));
  const args = signIn.args ?? [];
  const brand = args.includes('--brand') ? [] : ['--brand', DEMO_BRAND];
  const child = spawnMain(
    [
      'connect',
      signIn.platform,
      ...brand,
      ...args,
      '--auth-root',
      signIn.root,
      '--api-root',
      signIn.root,
      '--paste-code',
    ],
    env,
  );
  const out = collect(child);
  const [, address] = await waitForStderr(child, /\n {2}(http\S+)\n/, out.stderr);
  await waitForStderr(child, /Address the browser ended on: /, out.stderr);
  child.stdin!.end(`${await (signIn.approve ?? followRedirect)(address!)}\n`);
  const code = await out.exit;
  return { dataDir, env, code, stdout: out.stdout.text, stderr: out.stderr.text, address: address! };
}
