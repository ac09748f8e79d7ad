import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cleanup, connectStdio, requireBuild, startServe, tempDir } from '../mcp/cli-harness.js';

type Message = LoggingMessageNotification['params'];

const clients: Client[] = [];

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await cleanup();
});

function collect(client: Client): Message[] {
  const messages: Message[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    messages.push(notification.params);
  });
  return messages;
}

async function waitFor(messages: Message[], data: string): Promise<void> {
  for (let i = 0; i < 500 && !messages.some((m) => m.data === data); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(messages).toContainEqual({ level: 'info', logger: 'publishing', data });
}

describe('publishing events as MCP log messages (built program)', () => {
  it('stdio: sends a published post to the client, and the line to stderr', async () => {
    const session = await connectStdio(childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() }));
    expect(session.client.getServerCapabilities()?.logging).toEqual({});
    const messages = collect(session.client);
    await session.client.setLoggingLevel('info');

    const created = await session.call('create_post', {
      brandId: 1,
      collectionId: 3,
      publishMode: 'IMMEDIATE',
      caption: 'Fresh roast today',
    });
    const id = (created.structuredContent as { data: { id: number } }).data.id;
    await waitFor(messages, `post ${id}: published`);
    // stderr is another pipe: its line may be read a moment after the notification.
    for (let i = 0; i < 100 && !session.stderr().includes(`post ${id}: published`); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(session.stderr()).toContain(`post ${id}: published`);
  });

  it('serve: sends a published post to the MCP session; remote mode has prompts, no logging', async () => {
    const serve = await startServe();
    const client = new Client({ name: 'test', version: '1' });
    clients.push(client);
    const messages = collect(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
      }),
    );
    expect(client.getServerCapabilities()?.logging).toEqual({});
    await client.setLoggingLevel('info');
    // Events travel on the session's event stream, which the client opens by itself after initializing:
    // publish until one post's events arrive (the first, unless the stream was not open yet).
    let published: string | undefined;
    for (let attempt = 0; attempt < 5 && !published; attempt++) {
      const created = await client.callTool({
        name: 'create_post',
        arguments: { brandId: 1, collectionId: 3, publishMode: 'IMMEDIATE', caption: `Now ${attempt}` },
      });
      expect(created.isError).toBeFalsy();
      const text = `post ${(created.structuredContent as { data: { id: number } }).data.id}: published`;
      for (let i = 0; i < 100 && !messages.some((m) => m.data === text); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (messages.some((m) => m.data === text)) published = text;
    }
    expect(messages).toContainEqual({ level: 'info', logger: 'publishing', data: published });

    const remote = await connectStdio(
      childEnv({
        SOCIAL_PUBLISHER_API_URL: `${serve.url}/v1`,
        SOCIAL_PUBLISHER_API_KEY: serve.key,
        SOCIAL_PUBLISHER_DATA_DIR: tempDir(),
      }),
    );
    expect(remote.client.getServerCapabilities()?.logging).toBeUndefined();
    const prompt = await remote.client.getPrompt({
      name: 'draft_post',
      arguments: { brandId: '1', collectionId: '2', topic: 'latte art' },
    });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain(
      '- Northwind Coffee on Pinterest (Pinterest): INACTIVE',
    );
  });
});
