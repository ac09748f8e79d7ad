/**
 * The MCP server factory: one server per session (MCP 2025-11-25) or per request (2026-07-28), over a
 * service bound to the acting user; the serving entry (stdio.ts, streamable-http.ts) says which protocol
 * generation it answers. Tools are dispatched here rather than through `McpServer.registerTool`, whose
 * own argument validation would replace the interface's messages with the SDK's. Prompts, resources and
 * their completions use McpServer's own handlers (prompts.ts, resources.ts). Publishing events reach
 * 2025 clients as log messages (logging.ts) and both generations as resource updates (resource-updates.ts).
 * A tool asks the user through elicitation (2025, confirm.ts) or by answering input_required (2026,
 * input-required.ts).
 */
import { randomBytes } from 'node:crypto';
import {
  type CacheHint,
  type ClientCapabilities,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { coerceArguments } from '../domain/lenient-input.js';
import type { PublishingService } from '../service/publishing-service.js';
import { progressReporter, trackCall } from './call-tracking.js';
import { confirmationContext } from './confirm.js';
import { instructionsFor, SERVER_TITLE, serverCapabilities } from './handshake.js';
import { SERVER_ICONS } from './icons.js';
import type { InFlightCalls } from './in-flight.js';
import {
  askingResult,
  envelopeCapabilities,
  inputRequiredContext,
  type RoundCodec,
  roundCodec,
  UserInputNeeded,
} from './input-required.js';
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
import { forwardResourceUpdates } from './resource-updates.js';
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
   * True when this process publishes (absent in remote mode, where another server publishes): the server
   * then says that its resources change (and, to 2025 clients, that it logs publishing).
   */
  publishes?: boolean;
  /**
   * The publishing engine's events, for a server that passes them on itself: as log messages and resource
   * updates (2025 sessions, stdio). A 2026-07-28 server made for one HTTP request has none: its endpoint's
   * bus passes them on (streamable-http.ts).
   */
  publishingLog?: PublishingLog;
  /** Which tools are offered (default: all). */
  tools?: ToolSelection;
  /** The protocol generation this server answers: `legacy` (2025-11-25 and before, the default) or `modern`. */
  era?: 'legacy' | 'modern';
  /**
   * Signs what a 2026-07-28 call carries while the user answers: the same for every process that may
   * receive the answer (serve: derived from the secret key). Default: a key of this process.
   */
  requestStateKey?: Uint8Array;
  /** Who acts (a user id): the carried state is bound to them. */
  principal?: string;
}

/** This process's key for what a call carries, when none is given (one process serves every round). */
let processKey: Buffer | undefined;
function ownKey(): Buffer {
  processKey ??= randomBytes(32);
  return processKey;
}

/**
 * How long a 2026-07-28 client may keep what it read (the SDK defaults to not at all). The lists of tools,
 * prompts and templates never change while the process runs; a user's brands (resources/list) may.
 */
const CACHE_HINTS: Record<string, CacheHint> = {
  'tools/list': { ttlMs: 3_600_000, cacheScope: 'private' },
  'prompts/list': { ttlMs: 3_600_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'private' },
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 60_000, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

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

/** A server for `service`; each tool's module is loaded on its first call (tool-catalog.ts). */
export function createMcpServer(service: PublishingService, options: McpServerOptions): McpServer {
  const era = options.era ?? 'legacy';
  // Made on first use: the codec reaches for Web Crypto, which costs a start on Node 20 to load.
  let codec: RoundCodec | undefined;
  const rounds = (): RoundCodec => {
    codec ??= roundCodec(options.requestStateKey ?? ownKey(), options.principal ?? '');
    return codec;
  };
  const publishes = options.publishes ?? Boolean(options.publishingLog);
  // Logging is 2025's: deprecated in 2026-07-28, whose clients hear of publishing through resource updates.
  const logs = publishes && era === 'legacy';
  const server = new McpServer(
    { name: options.name, version: options.version, title: SERVER_TITLE, icons: SERVER_ICONS },
    {
      instructions: instructionsFor(options.tools ?? ALL_TOOLS),
      jsonSchemaValidator: lazyJsonSchemaValidator,
      // Only a capability given here gets the SDK's logging/setLevel handler.
      ...(logs ? { capabilities: { logging: {} } } : {}),
      cacheHints: CACHE_HINTS,
      requestState: { verify: (state, ctx) => rounds().verify(state, ctx) },
    },
  );
  const selection = options.tools ?? ALL_TOOLS;
  // The prompts end in create_post: offered only with it.
  const createPost = TOOL_CATALOG.find((entry) => entry.name === 'create_post');
  const withPrompts = createPost !== undefined && !whyUnavailable(createPost, selection);
  if (withPrompts) registerPrompts(server, service, options.log);
  registerResources(server, service, options.log);
  registerPostPreviewPage(server, era);
  registerQueueCalendarPage(server, era);
  // Tools are declared here rather than in the constructor options, where McpServer would install its
  // own tool handlers. No list_changed notification is ever sent, whatever McpServer claims by default.
  server.server.registerCapabilities(serverCapabilities({ logging: logs, updates: publishes }));
  if (!withPrompts) server.server.setRequestHandler('prompts/list', () => ({ prompts: [] }));
  if (options.publishingLog) {
    if (logs) forwardPublishingEvents(server, options.publishingLog);
    forwardResourceUpdates(server, options.publishingLog, era);
  }
  /** The client's capabilities: stated with each request in 2026-07-28, at initialization before. */
  const capabilitiesOf = (ctx: ServerContext): ClientCapabilities | undefined =>
    era === 'modern' ? envelopeCapabilities(ctx) : server.server.getClientCapabilities();
  const catalog = new Map(TOOL_CATALOG.map((entry) => [entry.name, entry]));
  server.server.setRequestHandler('tools/list', async (_request, ctx) => ({
    tools: await listTools(selection, rendersApps(capabilitiesOf(ctx))),
  }));
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    const entry = catalog.get(request.params.name);
    if (!entry) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. Call tools/list for the tools.`,
      );
    }
    const unavailable = whyUnavailable(entry, selection);
    if (unavailable)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${unavailable} Call tools/list for the tools.`,
      );
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
    const call = { name: request.params.name, args: request.params.arguments ?? {} };
    // 2025: the question belongs to this call, routed with it and abandoned when the call is cancelled.
    // 2026-07-28: the call answers with the question; the client calls again with the user's answer.
    const asker =
      era === 'modern'
        ? inputRequiredContext(ctx, call)
        : confirmationContext(server.server, { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal });
    const context: ToolContext = {
      canConfirm: asker.canConfirm,
      confirm: (message) => tracking.pausedDuring(asker.confirm(message)),
      canOpenUrl: asker.canOpenUrl,
      openUrl: (message, url, carry) => tracking.pausedDuring(asker.openUrl(message, url, carry)),
      carried: 'carried' in asker ? (asker.carried as Record<string, unknown> | undefined) : undefined,
      waitForUser: (work) => tracking.pausedDuring(work),
      signal: ctx.mcpReq.signal,
      progress: progressReporter(request.params._meta?.progressToken, (params) =>
        ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined),
      ),
    };
    let args: Record<string, unknown> = {};
    try {
      args = coerceArguments(tool.input, request.params.arguments ?? {}, {
        jsonStrings: true,
      }) as Record<string, unknown>;
      const success = await tool.handle(service, args, context);
      const done = { name: tool.name, args, data: success.body.data };
      const capabilities = capabilitiesOf(ctx);
      const result = await withPostPreview(capabilities, service, done, successResult(success), options.log);
      return await withQueueCalendar(capabilities, service, done, result, options.log);
    } catch (error) {
      if (error instanceof UserInputNeeded) return await askingResult(error, ctx, call, rounds());
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
