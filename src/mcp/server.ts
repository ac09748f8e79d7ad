/**
 * The MCP server factory: one server per session, over a service bound to the acting user.
 * Tools are dispatched here rather than through `McpServer.registerTool`, whose own argument
 * validation would replace the interface's messages with the SDK's. Prompts, resources and their
 * completions use McpServer's own handlers (prompts.ts, resources.ts); publishing events reach the
 * client as log messages (logging.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { coerceArguments } from '../domain/lenient-input.js';
import type { PublishingService } from '../service/publishing-service.js';
import { confirmationContext } from './confirm.js';
import { instructionsFor, SERVER_TITLE, serverCapabilities } from './handshake.js';
import { SERVER_ICONS } from './icons.js';
import type { InFlightCalls } from './in-flight.js';
import { lazyJsonSchemaValidator } from './json-schema-validator.js';
import { forwardPublishingEvents, type PublishingLog } from './logging.js';
import {
  POST_PREVIEW_TOOLS,
  registerPostPreviewPage,
  rendersApps,
  withAppMeta,
  withPostPreview,
} from './post-preview-app.js';
import { registerPrompts } from './prompts.js';
import { QUEUE_CALENDAR_TOOLS, registerQueueCalendarPage, withQueueCalendar } from './queue-calendar-app.js';
import { registerResources } from './resources.js';
import { errorResult, successResult } from './results.js';
import type { ToolContext, ToolDefinition } from './tool.js';
import { listedTools, TOOL_CATALOG } from './tool-catalog.js';
import { ALL_TOOLS, selectTools, type ToolSelection, whyUnavailable } from './toolsets.js';

export interface McpServerOptions {
  name: string;
  version: string;
  /** Where unexpected errors are reported in full (stderr in production). */
  log: (message: string, error: unknown) => void;
  /** Tracks tool calls under way, for a transport that closes gracefully. */
  inFlight?: InFlightCalls;
  /**
   * The publishing engine's events to pass on as MCP log messages (the logging capability), when this
   * process publishes; absent in remote mode, where another server publishes.
   */
  publishingLog?: PublishingLog;
  /** Which tools are offered (default: all). */
  tools?: ToolSelection;
}

/** tools/list never changes during a session: computed once per process and selection. */
const toolLists = new Map<string, Promise<Tool[]>>();

function listTools(selection: ToolSelection, apps: boolean): Promise<Tool[]> {
  const key = JSON.stringify({ selection, apps });
  let list = toolLists.get(key);
  if (!list) {
    const offered = new Set(selectTools(TOOL_CATALOG, selection).map((entry) => entry.name));
    list = listedTools().then((tools) => {
      const listed = tools.filter((tool) => offered.has(tool.name));
      return apps ? withAppMeta(listed, { ...POST_PREVIEW_TOOLS, ...QUEUE_CALENDAR_TOOLS }) : listed;
    });
    toolLists.set(key, list);
  }
  return list;
}

/**
 * Marks one call as under way for a graceful close, except while it waits for the user: a closing
 * transport waits for work to finish, not for a person to answer (closing then ends the question).
 */
function trackCall(inFlight: InFlightCalls | undefined) {
  let release = () => {};
  const resume = () => {
    inFlight?.track(
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
  };
  resume();
  return {
    async pausedDuring<T>(wait: Promise<T>): Promise<T> {
      release();
      try {
        return await wait;
      } finally {
        resume();
      }
    },
    end: () => release(),
  };
}

/** Progress notifications for one call: at most one per percent (or per MiB when the total is unknown). */
function progressReporter(
  token: string | number | undefined,
  send: (params: {
    progressToken: string | number;
    progress: number;
    total?: number;
    message?: string;
  }) => unknown,
): ToolContext['progress'] {
  if (token === undefined) return () => undefined;
  let last = -1;
  return (done, total, message) => {
    const step = total ? Math.max(1, Math.floor(total / 100)) : 1024 * 1024;
    if (last >= 0 && done - last < step && done !== total) return;
    last = done;
    send({
      progressToken: token,
      progress: done,
      ...(total ? { total } : {}),
      ...(message ? { message } : {}),
    });
  };
}

/** A server for `service`; each tool's module is loaded on its first call (tool-catalog.ts). */
export function createMcpServer(service: PublishingService, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: options.name, version: options.version, title: SERVER_TITLE, icons: SERVER_ICONS },
    {
      instructions: instructionsFor(options.tools ?? ALL_TOOLS),
      jsonSchemaValidator: lazyJsonSchemaValidator,
      // Only a capability given here gets the SDK's logging/setLevel handler.
      ...(options.publishingLog ? { capabilities: { logging: {} } } : {}),
    },
  );
  const selection = options.tools ?? ALL_TOOLS;
  // The prompts end in create_post: offered only with it.
  const createPost = TOOL_CATALOG.find((entry) => entry.name === 'create_post');
  const withPrompts = createPost !== undefined && !whyUnavailable(createPost, selection);
  if (withPrompts) registerPrompts(server, service, options.log);
  registerResources(server, service, options.log);
  registerPostPreviewPage(server);
  registerQueueCalendarPage(server);
  // Tools are declared here rather than in the constructor options, where McpServer would install its
  // own tool handlers. No list_changed notification is ever sent, whatever McpServer claims by default.
  // The same capabilities as the stdio handshake announces before this server is loaded.
  server.server.registerCapabilities(serverCapabilities(Boolean(options.publishingLog)));
  if (!withPrompts) server.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }));
  if (options.publishingLog) forwardPublishingEvents(server, options.publishingLog);
  const catalog = new Map(TOOL_CATALOG.map((entry) => [entry.name, entry]));
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: await listTools(selection, rendersApps(server.server)),
  }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = catalog.get(request.params.name);
    if (!entry) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. Call tools/list for the tools.`,
      );
    }
    const unavailable = whyUnavailable(entry, selection);
    if (unavailable)
      throw new McpError(ErrorCode.InvalidParams, `${unavailable} Call tools/list for the tools.`);
    // Tracked from here: a client that closes stdin right after its last request still gets the answer,
    // also while the tool's module loads.
    const tracking = trackCall(options.inFlight);
    let tool: ToolDefinition;
    try {
      tool = await entry.load();
    } catch (error) {
      tracking.end();
      throw error;
    }
    // The question belongs to this call: routed with it, and abandoned when the call is cancelled.
    const asker = confirmationContext(server.server, {
      relatedRequestId: extra.requestId,
      signal: extra.signal,
    });
    const context: ToolContext = {
      canConfirm: asker.canConfirm,
      confirm: (message) => tracking.pausedDuring(asker.confirm(message)),
      canOpenUrl: asker.canOpenUrl,
      openUrl: (message, url) => tracking.pausedDuring(asker.openUrl(message, url)),
      waitForUser: (work) => tracking.pausedDuring(work),
      signal: extra.signal,
      progress: progressReporter(request.params._meta?.progressToken, (params) =>
        extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined),
      ),
    };
    let args: Record<string, unknown> = {};
    try {
      args = coerceArguments(tool.input, request.params.arguments ?? {}, {
        jsonStrings: true,
      }) as Record<string, unknown>;
      const success = await tool.handle(service, args, context);
      const call = { name: tool.name, args, data: success.body.data };
      const result = await withPostPreview(server.server, service, call, successResult(success), options.log);
      return await withQueueCalendar(server.server, service, call, result, options.log);
    } catch (error) {
      // The hints are loaded with the first failed call: a call that succeeds never needs them.
      const { explainError } = await import('./error-hints.js');
      return await errorResult(error, options.log, (failure) =>
        explainError(failure, { tool, args, service }),
      );
    } finally {
      tracking.end();
    }
  });
  return server;
}
