import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pngBytes } from '../contract/media-files.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import {
  type ChannelDetailJson,
  collectionId,
  freePort,
  programEnv,
  readDatabase,
  restClient,
  type Serve,
  startServe,
  waitForPost,
} from '../support/connected-program.js';
import { type GoogleBusinessServer, startGoogleBusinessServer } from '../support/google-business-server.js';
import { connectOnTerminal } from '../support/oauth-terminal.js';

let google: GoogleBusinessServer;
const serves: Serve[] = [];

beforeAll(() => requireBuild());
beforeEach(async () => {
  google = await startGoogleBusinessServer({
    locations: [
      { account: '1001', id: '2002', title: 'Acme Coffee' },
      { account: '1001', id: '2003', title: 'Acme Roastery' },
    ],
  });
});
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.kill();
  await google.close();
  await cleanup();
});

/** `connect googlebusiness` on a terminal with the operator's Google app (a new data directory unless given). */
const connect = (more: string[], env?: Record<string, string>, dataDir?: string) =>
  connectOnTerminal({
    app: 'GOOGLE',
    client: google.signIn.app,
    platform: 'googlebusiness',
    root: google.url,
    args: more,
    ...(env && dataDir ? { env, dataDir } : {}),
  });

describe('connect googlebusiness', () => {
  it('lists the locations when several and none named (exit 2), and connects the one --account names', async () => {
    const listed = await connect([]);
    const { dataDir, env } = listed;
    expect(listed.code, listed.stderr).toBe(2);
    expect(listed.stderr).toContain('Acme Coffee');
    expect(listed.stderr).toContain('locations/2003');
    const query = new URL(listed.address).searchParams;
    expect(query.get('access_type')).toBe('offline');
    expect(query.get('code_challenge_method')).toBe('S256');

    const run = await connect(['--account', 'Acme Roastery', '--collection', 'Newsletter'], env, dataDir);
    expect(run.code, run.stderr).toBe(0);
    const channel = JSON.parse(run.stdout) as ChannelDetailJson & {
      type: string;
      connection: Record<string, unknown>;
    };
    expect(channel.type).toBe('Google Business');
    expect(channel.connection).toMatchObject({
      connector: 'googlebusiness',
      account: 'Acme Roastery',
      accountId: 'accounts/1001/locations/2003',
      profileUrl: 'https://maps.google.com/maps?cid=2003',
      credentials: 'stored',
    });
    for (const secret of google.secrets()) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
    const row = readDatabase(
      dataDir,
      (db) => db.prepare('SELECT settings FROM channel_connections').get() as { settings: string },
    );
    expect(JSON.parse(row.settings)).toEqual({ authRoot: google.url });
  });

  it('says, and connects nothing, when Google has not approved the project yet', async () => {
    google.setApproved(false);
    const run = await connect(['--account', 'Acme Roastery']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Google has not approved this app's Business Profile API access yet");
    expect(run.stderr).toContain('https://support.google.com/business/contact/api_default');
  });
});

it('serve publishes a post with a photo Google fetches from its signed address, once, with its button', async () => {
  const port = await freePort();
  const dataDir = tempDir('spm-google-business-');
  const env = programEnv(dataDir, { SOCIAL_PUBLISHER_PUBLIC_URL: `http://127.0.0.1:${port}` });
  const connected = await connect(
    ['--account', 'locations/2003', '--collection', 'Newsletter'],
    env,
    dataDir,
  );
  expect(connected.code, connected.stderr).toBe(0);
  const serve = await startServe(env, undefined, port);
  serves.push(serve);
  const form = new FormData();
  form.append('media', new Blob([new Uint8Array(pngBytes(11))], { type: 'image/png' }), 'beans.png');
  const uploaded = await fetch(`${serve.url}/v1/brands/1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.key}` },
    body: form,
  });
  const media = ((await uploaded.json()) as { data: { id: string } }).data;
  const rest = restClient(serve);
  const created = await rest.post<{ id: number; warnings?: { message: string }[] }>(
    `/v1/brands/1/collections/${await collectionId(rest, 'Newsletter')}/posts`,
    {
      publishMode: 'IMMEDIATE',
      caption: 'New single origin in store',
      link: 'https://acme.example/beans',
      media: [{ id: media.id }],
      comment: { comment: 'Ask for a taste', delay: 0 },
    },
  );
  const warnings = created.warnings ?? [];
  expect(warnings.map((warning) => warning.message)).toContain(
    'Google Business has no comments: the auto-comment is not posted there.',
  );
  const post = await waitForPost(rest, created.id);
  expect(post.status, JSON.stringify(post.deliveries)).toBe('published');
  expect(google.posts).toHaveLength(1);
  const [sent] = google.posts;
  expect(sent!.body).toMatchObject({
    summary: 'New single origin in store',
    topicType: 'STANDARD',
    callToAction: { actionType: 'LEARN_MORE', url: 'https://acme.example/beans' },
  });
  const sourceUrl = (sent!.body.media as { sourceUrl: string }[])[0]!.sourceUrl;
  expect(sourceUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/media/1\\.`));
  expect(sent!.downloaded).toBe(pngBytes(11).length);
  const delivery = post.deliveries.find((candidate) => candidate.externalId === sent!.name);
  expect(delivery?.url).toContain(`lpsid=${sent!.id}`);
  expect(delivery?.comment).toMatchObject({
    status: 'failed',
    reason: expect.stringContaining('no comments'),
  });
});
