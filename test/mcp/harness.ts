/**
 * The real SDK client connected in-process to our MCP server over linked in-memory transports, on a
 * real SQLite store with the demo workspace (test/support/local.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { InFlightCalls } from '../../src/mcp/in-flight.js';
import type { PublishingEventFeed } from '../../src/mcp/logging.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import { authenticate, canSeeBrand, resolveLocalUser } from '../../src/service/acting-user.js';
import { openTestRuntime, type TestRuntime } from '../support/local.js';

export interface McpHarness {
  rt: TestRuntime;
  client: Client;
  /** tools/list as the client saw it (listing also arms the client's output-schema validators). */
  tools: Tool[];
  /** What the server reported through its `log` option (unexpected errors). */
  logged: Array<{ message: string; error: unknown }>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface McpHarnessOptions {
  /**
   * The client's user: when given, the client declares the elicitation capability and answers every
   * question the server asks with this.
   */
  elicit?: (params: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
  /** Passed to the server, which marks its calls under way there. */
  inFlight?: InFlightCalls;
  /**
   * The engine's events, which the server then passes on as MCP log messages (for the demo user's
   * brands), as in stdio mode.
   */
  publishingEvents?: PublishingEventFeed;
  /** Imported into the demo store before the server starts. */
  workspace?: Workspace;
  /** The server acts as this key's user (imported with `workspace`); default: the demo user. */
  apiKey?: string;
  /** More capabilities the client declares (an extension such as MCP Apps). */
  capabilities?: ClientCapabilities;
}

export async function openMcpHarness(options: McpHarnessOptions = {}): Promise<McpHarness> {
  const rt = await openTestRuntime();
  if (options.workspace) await rt.importWorkspace(options.workspace);
  const { apiKey } = options;
  const user = apiKey
    ? await authenticate(rt.runtime.store, apiKey)
    : await resolveLocalUser(rt.runtime.store, undefined);
  const logged: McpHarness['logged'] = [];
  const server = createMcpServer(apiKey ? await rt.serviceFor(apiKey) : rt.service, {
    name: 'social-publisher-mcp',
    version: '0.0.0-test',
    log: (message, error) => logged.push({ message, error }),
    inFlight: options.inFlight,
    ...(options.publishingEvents
      ? {
          publishingLog: {
            feed: options.publishingEvents,
            canSeeBrand: (brandId: number) => canSeeBrand(rt.runtime.store, user, brandId),
          },
        }
      : {}),
  });
  const { elicit } = options;
  const capabilities = { ...(elicit ? { elicitation: {} } : {}), ...options.capabilities };
  const client = new Client(
    { name: 'protocol-test', version: '1.0.0' },
    Object.keys(capabilities).length > 0 ? { capabilities } : undefined,
  );
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  try {
    await server.connect(serverTransport);
    await client.connect(clientTransport);
  } catch (error) {
    await rt.close();
    throw error;
  }
  const { tools } = await client.listTools();
  return {
    rt,
    client,
    tools,
    logged,
    // callTool validates structuredContent against the tool's outputSchema and throws on a mismatch.
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await server.close();
      await rt.close();
    },
  };
}

/** The text of a result's content, all text blocks joined. */
export function textOf(result: CallToolResult): string {
  return result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** A valid 1×1 RGBA PNG. */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export function writePng(dir: string, name = 'pixel.png'): string {
  const path = join(dir, name);
  writeFileSync(path, PNG_1X1);
  return path;
}

/** The spec's 422 body. */
export function invalid(errors: Record<string, string[]>) {
  return { status: 'error', message: 'The given data was invalid.', errors };
}

/** The spec's 404 body: one key whose value equals the message. */
export function notFound(key: string, message: string) {
  return { status: 'error', message, errors: { [key]: message } };
}

export const BRAND_NOT_FOUND = notFound('brand', 'Brand not found.');
export const COLLECTION_NOT_FOUND = notFound('collection', 'Collection not found.');
