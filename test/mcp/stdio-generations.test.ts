/**
 * The built program over stdio, as a host starts it, with each client a host may bring: the SDK v2
 * client speaking MCP 2026-07-28 (its `server/discover` probe, then no initialize) or 2025-11-25, and
 * the v1 client. The same tools in the same order and the same results; on 2026-07-28, the question
 * before publishing as input_required and the post's publishing heard on a subscriptions/listen stream.
 */
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CHILD_TIMEOUT_MS,
  childEnv,
  cleanup,
  connectStdio,
  MAIN_JS,
  requireBuild,
  tempDir,
} from './cli-harness.js';

beforeAll(() => requireBuild());
const v2Clients: ClientV2[] = [];
afterEach(async () => {
  for (const client of v2Clients.splice(0)) await client.close().catch(() => undefined);
  await cleanup();
});

async function v2Client(
  env: Record<string, string>,
  mode: 'legacy' | { pin: '2026-07-28' },
  confirm = false,
): Promise<{ client: ClientV2; asked: string[] }> {
  const client = new ClientV2(
    { name: 'stdio-generations', version: '1' },
    { versionNegotiation: { mode }, capabilities: confirm ? { elicitation: { form: {} } } : {} },
  );
  const asked: string[] = [];
  if (confirm) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
  }
  await client.connect(new StdioV2({ command: process.execPath, args: [MAIN_JS], env, stderr: 'ignore' }), {
    timeout: CHILD_TIMEOUT_MS,
  });
  v2Clients.push(client);
  return { client, asked };
}

describe('the built program over stdio, with the v2 and the v1 client', () => {
  it('answers 2026-07-28 and 2025-11-25 alike: the same tools in the same order, the same results', async () => {
    const env = childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() });
    const { client: modern } = await v2Client(env, { pin: '2026-07-28' });
    const { client: legacy } = await v2Client(env, 'legacy');
    const v1 = await connectStdio(env);
    expect(modern.getProtocolEra()).toBe('modern');
    expect(legacy.getProtocolEra()).toBe('legacy');

    const lists = await Promise.all([modern.listTools(), legacy.listTools(), v1.client.listTools()]);
    const names = lists.map((list) => list.tools.map((tool) => tool.name));
    expect(names[0]).toHaveLength(14);
    expect(names[1]).toEqual(names[0]);
    expect(names[2]).toEqual(names[0]);
    const brands = await Promise.all([
      modern.callTool({ name: 'list_brands', arguments: {} }),
      legacy.callTool({ name: 'list_brands', arguments: {} }),
      v1.call('list_brands'),
    ]);
    expect(brands[0].structuredContent).toEqual(brands[2].structuredContent);
    expect(brands[1].structuredContent).toEqual(brands[2].structuredContent);
  });

  it('2026-07-28: asks before publishing, and a listen stream hears the post go out', async () => {
    const env = childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir() });
    const { client, asked } = await v2Client(env, { pin: '2026-07-28' }, true);
    const draft = await client.callTool({
      name: 'create_post',
      arguments: { brandId: 2, collectionId: 5, caption: 'Out over stdio', publishMode: 'DRAFT' },
    });
    expect(draft.isError, JSON.stringify(draft.content)).toBeFalsy();
    const { id } = (draft.structuredContent as { data: { id: number } }).data;
    const uri = `social-publisher://brands/2/posts/${id}`;
    const heard: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      heard.push(notification.params.uri);
    });
    await client.listen({ resourceSubscriptions: [uri] });

    const published = await client.callTool({ name: 'publish_post', arguments: { brandId: 2, postId: id } });
    expect(published.isError, JSON.stringify(published.content)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`Publish post ${id} now`);
    await expect.poll(() => heard, { timeout: CHILD_TIMEOUT_MS }).toContain(uri);
    const read = await client.readResource({ uri });
    const post = JSON.parse((read.contents[0] as { text: string }).text) as { status: string };
    expect(['published', 'partially_published', 'failed']).toContain(post.status);
  });
});
