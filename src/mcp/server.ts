/**
 * The MCP server factory: one server per session, over a service bound to the acting user.
 * Tools are dispatched here rather than through `McpServer.registerTool`, whose own argument
 * validation would replace the interface's messages with the SDK's.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { PublishingService } from '../service/publishing-service.js';
import { coerceArguments } from './arguments.js';
import type { InFlightCalls } from './in-flight.js';
import { TOOLS } from './registry.js';
import { errorResult, outputSchemaOf, successResult, toJsonSchema } from './results.js';

export interface McpServerOptions {
  name: string;
  version: string;
  /** Where unexpected errors are reported in full (stderr in production). */
  log: (message: string, error: unknown) => void;
  /** Tracks tool calls under way, for a transport that closes gracefully. */
  inFlight?: InFlightCalls;
}

const INSTRUCTIONS = [
  'Publishes social-media posts for brands. Workflow: list_brands → list_collections (pick the collection whose channels',
  'should get the post) → optionally upload_media → create_post. Times (scheduledAt) are local wall-clock times in the',
  "brand's timezone, format Y-m-d H:i:s. Errors name each invalid field; fix those fields and call again.",
].join(' ');

/** tools/list never changes during a session: computed once per process. */
let toolList: Tool[] | undefined;

function listTools(): Tool[] {
  toolList ??= TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toJsonSchema(tool.input, 'input') as Tool['inputSchema'],
    outputSchema: outputSchemaOf(tool) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  }));
  return toolList;
}

export function createMcpServer(service: PublishingService, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: options.name, version: options.version, title: 'Social Publisher' },
    { instructions: INSTRUCTIONS },
  );
  // Declared here rather than in the constructor options, where McpServer would install its own tool
  // handlers and claim list changes it never sends.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  const tools = new Map(TOOLS.map((tool) => [tool.name, tool]));

  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.get(request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. Call tools/list for the tools.`,
      );
    }
    try {
      const args = coerceArguments(tool.input, request.params.arguments ?? {});
      return successResult(await tool.handle(service, args as Record<string, unknown>));
    } catch (error) {
      return errorResult(error, options.log);
    }
  });
  return server;
}
