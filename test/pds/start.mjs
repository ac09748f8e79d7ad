#!/usr/bin/env node
/**
 * A real Bluesky PDS for tests, offline: @atproto/dev-env's TestNetworkNoAppView (a PLC directory and a
 * PDS on SQLite, no AppView). Needs Node >= 22 and `node test/pds/install.mjs` first.
 *
 * Creates two accounts, `alice.test` (the one that publishes, with an app password) and `bob.test` (one
 * to mention), prints ONE JSON line on stdout and stays up until stdin closes or SIGTERM/SIGINT:
 *
 *   { "service": "http://localhost:<port>", "handle", "did", "password", "appPassword",
 *     "appPasswordName", "expiredAccessJwt", "other": { "handle", "did", "password" } }
 *
 * `password` is the account password (what revoking an app password needs); `expiredAccessJwt` is an
 * access token of alice's app-password session that expired an hour ago, signed with the PDS's own key,
 * so that a test can hand a connector a session whose access token the PDS rejects as `ExpiredToken`.
 * Everything the PDS writes lives in one temporary folder, removed on exit. Diagnostics go to stderr.
 */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestNetworkNoAppView } from '@atproto/dev-env';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`test/pds/start.mjs needs Node >= 22 (this is ${process.version}).`);
  process.exit(2);
}

const dataDir = await mkdtemp(join(tmpdir(), 'social-publisher-pds-'));
let network;
let stopping = false;

async function stop(code) {
  if (stopping) return;
  stopping = true;
  try {
    await network?.close();
  } catch (error) {
    console.error('closing the test PDS failed:', error);
  }
  await rm(dataDir, { recursive: true, force: true });
  process.exit(code);
}

process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));
process.stdin.on('end', () => stop(0));
process.stdin.on('close', () => stop(0));
process.stdin.resume();

try {
  network = await TestNetworkNoAppView.create({
    pds: {
      dataDirectory: dataDir,
      blobstoreDiskLocation: join(dataDir, 'blobs'),
    },
  });
  const service = network.pds.url;
  const alice = await createAccount(network, 'alice');
  const bob = await createAccount(network, 'bob');
  const appPassword = await alice.agent.com.atproto.server.createAppPassword({ name: 'social-publisher' });
  process.stdout.write(
    `${JSON.stringify({
      service,
      handle: alice.handle,
      did: alice.did,
      password: alice.password,
      appPassword: appPassword.data.password,
      appPasswordName: appPassword.data.name,
      expiredAccessJwt: expiredAccessJwt(network, alice.did),
      other: { handle: bob.handle, did: bob.did, password: bob.password },
    })}\n`,
  );
} catch (error) {
  console.error('starting the test PDS failed:', error);
  await stop(1);
}

async function createAccount(net, name) {
  const agent = net.pds.getAgent();
  const handle = `${name}.test`;
  const password = `${name}-password`;
  const { data } = await agent.createAccount({ handle, email: `${name}@example.com`, password });
  return { agent, handle, did: data.did, password };
}

/** An HS256 access token as the PDS makes for an app-password session (auth.ts), expired an hour ago. */
function expiredAccessJwt(net, did) {
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const nowSeconds = Math.floor(Date.now() / 1000);
  const header = encode({ typ: 'at+jwt', alg: 'HS256' });
  const payload = encode({
    scope: 'com.atproto.appPass',
    aud: net.pds.ctx.cfg.service.did,
    sub: did,
    iat: nowSeconds - 7200,
    exp: nowSeconds - 3600,
  });
  const signature = createHmac('sha256', net.pds.jwtSecretKey())
    .update(`${header}.${payload}`)
    .digest('base64url');
  return `${header}.${payload}.${signature}`;
}
