/**
 * Sign-ins that `serve` completes (product.md): begun by a user of the brand over REST
 * (`POST /v1/brands/{brandId}/connections`) or MCP (`connect_channel`), completed on the server's
 * `/oauth/callback` behind SOCIAL_PUBLISHER_PUBLIC_URL. The built program against the loopback LinkedIn
 * stand-in (its origins given in DATA_DIR/apps.json); the MCP client is the SDK's, with and without
 * URL-mode elicitation. No token or code reaches a body, a tool result or the log.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  connectStdio,
  requireBuild,
  tempDir,
} from '../mcp/cli-harness.js';
import { freePort, programEnv, restClient, type Serve, startServe } from '../support/connected-program.js';
import { type LinkedInServer, MEMBER_URN, startLinkedInServer } from '../support/linkedin-server.js';

let linkedin: LinkedInServer;
let serve: Serve;

beforeAll(() => requireBuild());
afterEach(async () => {
  await serve?.stop();
  await linkedin.close();
  await cleanup();
});

/** A data directory with the operator's LinkedIn app in apps.json, pointed at the stand-in. */
function dataDirWithApp(): string {
  const dataDir = tempDir('spm-oauth-serve-');
  writeFileSync(
    join(dataDir, 'apps.json'),
    JSON.stringify({
      LINKEDIN: {
        clientId: linkedin.clientId,
        clientSecret: linkedin.clientSecret,
        authRoot: linkedin.url,
        apiRoot: linkedin.url,
      },
    }),
  );
  return dataDir;
}

/** `serve` on a known port, with that address as its public URL and the LinkedIn app in apps.json. */
async function serveWithApp(options: { publicUrl?: boolean } = {}): Promise<Serve> {
  const dataDir = dataDirWithApp();
  const port = await freePort();
  const env = programEnv(
    dataDir,
    options.publicUrl === false ? {} : { SOCIAL_PUBLISHER_PUBLIC_URL: `http://127.0.0.1:${port}` },
  );
  serve = await startServe(env, undefined, port);
  return serve;
}

beforeEach(async () => {
  linkedin = await startLinkedInServer({ pages: [{ id: '2414183', name: 'Acme Corp' }] });
});

const post = async (path: string, body: unknown, key = serve.key) => {
  const response = await fetch(`${serve.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data: Record<string, string>; errors: Record<string, string[]> },
  };
};

describe('POST /v1/brands/{brandId}/connections and GET /oauth/callback', () => {
  it('answers the authorization address; the callback connects the channel once', async () => {
    await serveWithApp();
    const started = await post('/v1/brands/1/connections', { platform: 'linkedin', account: 'Acme Corp' });
    expect(started.status).toBe(201);
    const { authorizationUrl, expiresAt } = started.body.data as {
      authorizationUrl: string;
      expiresAt: string;
    };
    expect(new URL(authorizationUrl).searchParams.get('redirect_uri')).toBe(`${serve.url}/oauth/callback`);
    const minutes = (Date.parse(expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
    const approved = await linkedin.approve(authorizationUrl);
    const callback = await fetch(approved.redirectedTo);
    expect(callback.status).toBe(200);
    expect(await callback.text()).toContain('Connected: Acme Corp');
    const rest = restClient(serve);
    const channels = await rest.get<Array<{ id: number; name: string; type: string }>>(
      '/v1/brands/1/channels?per_page=100',
    );
    const channel = channels.find((c) => c.name === 'Acme Corp')!;
    expect(channel.type).toBe('LinkedIn');
    const detail = await rest.get<{ connection: Record<string, unknown> }>(
      `/v1/brands/1/channels/${channel.id}`,
    );
    expect(detail.connection).toMatchObject({ connector: 'linkedin', account: 'Acme Corp' });
    // The same callback again: the sign-in was taken once.
    const again = await fetch(approved.redirectedTo);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('unknown or was used already');
    expect(serve.stderr()).not.toContain(approved.code);
  });

  it('refuses a platform it cannot sign in to, a brand the user lacks, and a server without a public URL', async () => {
    await serveWithApp();
    const unknown = await post('/v1/brands/1/connections', { platform: 'myspace' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.platform![0]).toContain('platform');
    const mastodon = await post('/v1/brands/1/connections', { platform: 'mastodon' });
    expect(mastodon.status).toBe(422);
    expect((await post('/v1/brands/99/connections', { platform: 'linkedin' })).status).toBe(404);
    expect((await post('/v1/brands/1/connections', { platform: 'linkedin' }, 'spk_wrong')).status).toBe(401);
    await serve.stop();
    await serveWithApp({ publicUrl: false });
    const none = await post('/v1/brands/1/connections', { platform: 'linkedin' });
    expect(none.status).toBe(422);
    expect(none.body.errors.platform![0]).toContain('SOCIAL_PUBLISHER_PUBLIC_URL');
  });

  it('a callback the user refused, or with a forged state, connects nothing', async () => {
    await serveWithApp();
    const { data } = (await post('/v1/brands/1/connections', { platform: 'linkedin' })).body;
    const state = new URL(data.authorizationUrl!).searchParams.get('state')!;
    const forged = await fetch(`${serve.url}/oauth/callback?code=abc&state=${'0'.repeat(32)}`);
    expect(forged.status).toBe(400);
    const refused = await fetch(
      `${serve.url}/oauth/callback?error=user_cancelled_authorize&error_description=The+member+refused&state=${state}`,
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('The member refused');
    // The demo brand's 12 channels, and no other; the refused sign-in is spent: its real code is refused too.
    const channels = await restClient(serve).get<Array<{ type: string }>>(
      '/v1/brands/1/channels?per_page=100',
    );
    expect(channels).toHaveLength(12);
    const late = await fetch((await linkedin.approve(data.authorizationUrl!)).redirectedTo);
    expect(late.status).toBe(400);
  });
});

describe('connect_channel over MCP', () => {
  async function mcp(urlElicitation: boolean, onUrl?: (url: string) => Promise<void>) {
    const completed: string[] = [];
    const client = new Client(
      { name: 'connect-test', version: '1' },
      { capabilities: urlElicitation ? { elicitation: { url: {} } } : {} },
    );
    if (urlElicitation)
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        const params = request.params as { mode?: string; url?: string };
        if (params.mode !== 'url' || !params.url) return { action: 'decline' };
        // The user opens the page; the client answers at once, the browser goes on by itself.
        void onUrl?.(params.url);
        return { action: 'accept' };
      });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
      completed.push(notification.params.elicitationId);
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
    });
    await client.connect(transport, { timeout: CHILD_TIMEOUT_MS });
    const call = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'connect_channel', arguments: args }, undefined, {
        timeout: CHILD_TIMEOUT_MS,
      })) as CallToolResult;
    return { client, call, completed };
  }

  it('with URL elicitation: the address is shown to the user, and the tool answers the channel', async () => {
    await serveWithApp();
    let code = '';
    const session = await mcp(true, async (url) => {
      const approved = await linkedin.approve(url);
      code = approved.code;
      await fetch(approved.redirectedTo);
    });
    const result = await session.call({ brandId: 1, platform: 'linkedin', account: MEMBER_URN });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const data = (result.structuredContent as { data: { type: string; connection: Record<string, unknown> } })
      .data;
    expect(data.type).toBe('LinkedIn');
    expect(data.connection).toMatchObject({ connector: 'linkedin', credentials: 'stored' });
    expect(session.completed).toHaveLength(1);
    expect(JSON.stringify(result)).not.toContain(code);
    await session.client.close();
  });

  it('without it: the address in the text, and the channel appears once the user approves', async () => {
    await serveWithApp();
    const session = await mcp(false);
    const result = await session.call({ brandId: 1, platform: 'linkedin', account: 'Acme Corp' });
    expect(result.isError).toBeFalsy();
    const { authorizationUrl } = (result.structuredContent as { data: { authorizationUrl: string } }).data;
    expect((result.content[0] as { text: string }).text).toContain(authorizationUrl);
    await fetch((await linkedin.approve(authorizationUrl)).redirectedTo);
    const channels = await restClient(serve).get<Array<{ name: string }>>(
      '/v1/brands/1/channels?per_page=100',
    );
    expect(channels.map((c) => c.name)).toContain('Acme Corp');
    await session.client.close();
  });

  it('a user who declines to open the page: an error result, nothing connected', async () => {
    await serveWithApp();
    const client = new Client(
      { name: 'decline', version: '1' },
      { capabilities: { elicitation: { url: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
      }),
    );
    const result = (await client.callTool({
      name: 'connect_channel',
      arguments: { brandId: 1, platform: 'linkedin' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain('did not open the sign-in page');
    await client.close();
  });
});

describe('connect_channel on MCP 2026-07-28', () => {
  it('the address as an input_required URL question; the call that brings the answer returns the channel', async () => {
    await serveWithApp();
    const linkedInChannels = async () =>
      (await restClient(serve).get<Array<{ type: string }>>('/v1/brands/1/channels?per_page=100')).filter(
        (channel) => channel.type === 'LinkedIn',
      ).length;
    const before = await linkedInChannels();
    const client = new ClientV2(
      { name: 'connect-modern', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } },
    );
    const opened: string[] = [];
    let code = '';
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url?: string };
      if (params.mode !== 'url' || !params.url) return { action: 'decline' };
      opened.push(params.url);
      // The user approves in the browser; the client answers at once.
      void linkedin.approve(params.url).then(async (approved) => {
        code = approved.code;
        await fetch(approved.redirectedTo);
      });
      return { action: 'accept' };
    });
    await client.connect(
      new StreamableHTTPClientTransportV2(new URL(`${serve.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
      }),
    );
    const result = await client.callTool(
      { name: 'connect_channel', arguments: { brandId: 1, platform: 'linkedin', account: MEMBER_URN } },
      { timeout: CHILD_TIMEOUT_MS },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    // One sign-in, asked once: the second call carried it rather than starting another.
    expect(opened).toHaveLength(1);
    const data = (result.structuredContent as { data: { type: string; connection: Record<string, unknown> } })
      .data;
    expect(data.type).toBe('LinkedIn');
    expect(data.connection).toMatchObject({ connector: 'linkedin', credentials: 'stored' });
    expect(JSON.stringify(result)).not.toContain(code);
    expect(await linkedInChannels()).toBe(before + 1);
    await client.close();
  });
});

describe('connect_channel over stdio', () => {
  it('a client without elicitation gets the address; the process itself takes the callback on loopback', async () => {
    const redirect = `http://127.0.0.1:${await freePort()}/callback`;
    const session = await connectStdio(
      childEnv({
        SOCIAL_PUBLISHER_DATA_DIR: dataDirWithApp(),
        SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI: redirect,
      }),
    );
    const result = await session.call('connect_channel', {
      brandId: 1,
      platform: 'linkedin',
      account: 'Acme Corp',
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { authorizationUrl } = (result.structuredContent as { data: { authorizationUrl: string } }).data;
    expect(new URL(authorizationUrl).searchParams.get('redirect_uri')).toBe(redirect);
    const approved = await linkedin.approve(authorizationUrl);
    const landed = await fetch(approved.redirectedTo);
    expect(await landed.text()).toContain('Connected: Acme Corp');
    const listed = await session.call('list_channels', { brandId: 1, per_page: 100 });
    const names = (listed.structuredContent as { data: Array<{ name: string }> }).data.map((c) => c.name);
    expect(names).toContain('Acme Corp');
    expect(session.stderr()).not.toContain(approved.code);
  });

  it('remote mode hands the sign-in to the remote server, whose callback completes it', async () => {
    await serveWithApp();
    const session = await connectStdio(
      childEnv({
        SOCIAL_PUBLISHER_DATA_DIR: tempDir('spm-oauth-remote-'),
        SOCIAL_PUBLISHER_API_URL: `${serve.url}/v1`,
        SOCIAL_PUBLISHER_API_KEY: serve.key,
      }),
    );
    const result = await session.call('connect_channel', {
      brandId: 1,
      platform: 'linkedin',
      account: MEMBER_URN,
    });
    expect(
      result.isError,
      `${JSON.stringify(result.content)} ${session.stderr()} SERVE: ${serve.stderr()}`,
    ).toBeFalsy();
    const { authorizationUrl } = (result.structuredContent as { data: { authorizationUrl: string } }).data;
    expect(new URL(authorizationUrl).searchParams.get('redirect_uri')).toBe(`${serve.url}/oauth/callback`);
    const landed = await fetch((await linkedin.approve(authorizationUrl)).redirectedTo);
    expect(landed.status, `${await landed.text()}\n${serve.stderr()}`).toBe(200);
  });
});
