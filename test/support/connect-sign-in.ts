/**
 * `connect <kind>` with a browser sign-in, as the connect-*.test.ts files run it: the built program with
 * the operator's app in the environment, both roots pointed at a platform's loopback stand-in, the
 * authorization address it prints (on a line of its own, indented: product.md) approved as a browser
 * would, landing on the program's loopback redirect.
 */
import { expect } from 'vitest';
import { type RunResult, runMain, spawnMain } from '../mcp/cli-harness.js';
import {
  collect,
  DEMO_BRAND,
  freePort,
  programEnv,
  readDatabase,
  waitForStderr,
} from './connected-program.js';
import { approve } from './x-sign-in.js';

/** What the program is told of a stand-in, read when a test runs (the stand-in starts before each). */
export interface SignInStandIn {
  /** `connect`'s kind: `threads`. */
  kind: string;
  /** The app's settings' name: SOCIAL_PUBLISHER_<name>_CLIENT_ID and SOCIAL_PUBLISHER_<name>_CLIENT_SECRET. */
  appName: string;
  /** The operator's app as the stand-in knows it; a redirect URI is registered with it for each run. */
  app: { clientId: string; clientSecret: string; redirectUris: string[] };
  /** The stand-in's address: the auth root and the API root. */
  url: string;
  /** The authorization page's path, a regular expression's source: `/oauth/authorize`. */
  authorizePath: string;
}

/** A run of `connect` through the sign-in: the authorization address it printed, its output and exit. */
export interface SignInRun {
  address: URL;
  stdout: string;
  stderr: string;
  code: number | null;
}

export function connectThrough(standIn: () => SignInStandIn) {
  const args = (flags: string[]) => {
    const { kind, url } = standIn();
    return ['connect', kind, '--brand', DEMO_BRAND, '--auth-root', url, '--api-root', url, ...flags];
  };
  return {
    /** The program's environment with the operator's app (and `extra`). */
    env(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
      const { appName, app } = standIn();
      return programEnv(dataDir, {
        [`SOCIAL_PUBLISHER_${appName}_CLIENT_ID`]: app.clientId,
        [`SOCIAL_PUBLISHER_${appName}_CLIENT_SECRET`]: app.clientSecret,
        ...extra,
      });
    },

    /** Runs `connect <kind>` with `flags` on a registered redirect, approving in the "browser". */
    async signIn(dataDir: string, flags: string[] = [], extraEnv?: Record<string, string>) {
      const redirect = `http://127.0.0.1:${await freePort()}/callback`;
      standIn().app.redirectUris.push(redirect);
      const child = spawnMain(args(['--redirect-uri', redirect, ...flags]), this.env(dataDir, extraEnv));
      const out = collect(child);
      const pattern = new RegExp(
        String.raw`\n {2}(http://127\.0\.0\.1:\d+${standIn().authorizePath}\?\S+)\n`,
      );
      const [, address] = await waitForStderr(child, pattern, out.stderr);
      await fetch((await approve(address!)).redirectedTo);
      const code = await out.exit;
      return { address: new URL(address!), stdout: out.stdout.text, stderr: out.stderr.text, code };
    },

    /** Runs `connect <kind>` without the app's settings: exit 1, naming them; the run. */
    async withoutApp(dataDir: string, flags: string[] = []): Promise<RunResult> {
      const { appName } = standIn();
      const run = await runMain(args(flags), programEnv(dataDir));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `SOCIAL_PUBLISHER_${appName}_CLIENT_ID and SOCIAL_PUBLISHER_${appName}_CLIENT_SECRET`,
      );
      return run;
    },
  };
}

/** The channel `connect` printed on stdout. */
export function printedChannel(run: { stdout: string }) {
  return JSON.parse(run.stdout) as { type: string; connection: Record<string, unknown> };
}

/** No secret in what the program printed. */
export function expectNoSecretPrinted(run: { stdout: string; stderr: string }, secrets: string[]) {
  for (const secret of secrets) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
}

/** The connections stored: their settings, and their secret's bytes as text (sealed, never plain). */
export function storedConnections(dataDir: string) {
  const rows = readDatabase(
    dataDir,
    (db) =>
      db.prepare('SELECT settings, secret FROM channel_connections').all() as {
        settings: string;
        secret: Uint8Array;
      }[],
  );
  return rows.map((row) => ({
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    secret: Buffer.from(row.secret).toString('latin1'),
  }));
}
