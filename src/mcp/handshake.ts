/**
 * The MCP handshake, answered before the server is loaded.
 *
 * Loading the server (zod, the MCP SDK and its schemas, luxon, our tools) takes a few hundred
 * milliseconds, most of a cold start; the `initialize` result depends on none of it. So over stdio the
 * first line is read here, without dependencies: an `initialize` request is answered at once, and the
 * bytes read are put back on stdin, for the SDK server to read once loaded. The server sees the same
 * `initialize` (it records the client's capabilities, which elicitation needs) and its reply, equal to
 * ours (test/mcp/handshake.test.ts compares them), is not sent again (`HandedOverStdioTransport`).
 *
 * The server's identity, instructions and capabilities live here, so both answers come from one source.
 */
import type { ToolSelection } from './toolsets.js';

export const SERVER_NAME = 'social-publisher-mcp';
export const SERVER_TITLE = 'Social Publisher';

export const INSTRUCTIONS = [
  'Publishes social-media posts for brands. Workflow: list_brands → list_collections (pick the collection whose channels',
  'should get the post) → optionally upload_media → create_post. Times (scheduledAt) are local wall-clock times in the',
  "brand's timezone, format Y-m-d H:i:s. get_queue shows the brand's local time and next free queue times. After",
  'creating: list_posts and get_post show posts and their deliveries; update_post, publish_post and delete_post',
  'change a post while it is a draft, queued or scheduled. Errors name each invalid field; fix those fields and call again.',
].join(' ');

/** The instructions for a server offering only some tools (mcp/toolsets.ts): what it can and cannot do. */
export function instructionsFor(selection: ToolSelection): string {
  if (!selection.readOnly && !selection.toolsets) return INSTRUCTIONS;
  const limits = [
    selection.readOnly
      ? 'This server is read-only: it shows brands, channels, collections, posts and queues, but creates, changes and publishes nothing.'
      : '',
    selection.toolsets
      ? `It offers only the ${selection.toolsets.join(', ')} toolset${selection.toolsets.length === 1 ? '' : 's'}; tools/list shows which tools.`
      : '',
  ];
  return [INSTRUCTIONS, ...limits.filter(Boolean)].join(' ');
}

/** The SDK's (`@modelcontextprotocol/sdk/types.js`, which loads zod): a test keeps them equal. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** Logging only where this process publishes (not in remote mode). No list ever changes in a session. */
export function serverCapabilities(logging: boolean) {
  return {
    ...(logging ? { logging: {} } : {}),
    completions: {},
    prompts: { listChanged: false },
    resources: { listChanged: false },
    tools: { listChanged: false },
  };
}

export interface HandshakeOptions {
  version: string;
  logging: boolean;
  tools: ToolSelection;
}

type RequestId = string | number;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Client capabilities whose shapes are plain objects: anything else is the server's to judge. */
const PLAIN_CLIENT_CAPABILITIES = new Set(['experimental', 'roots', 'sampling', 'elicitation']);

/**
 * An `initialize` request the SDK server is sure to accept, or undefined: anything unusual is left to
 * the server, whose reply then goes out as usual.
 */
function initializeRequest(line: string): { id: RequestId; protocolVersion: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'initialize') return undefined;
  const { id, params } = message;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return undefined;
  if (!isObject(params) || typeof params.protocolVersion !== 'string') return undefined;
  const { capabilities, clientInfo } = params;
  if (!isObject(capabilities) || !isObject(clientInfo)) return undefined;
  if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') return undefined;
  for (const [key, value] of Object.entries(capabilities)) {
    if (!PLAIN_CLIENT_CAPABILITIES.has(key) || !isObject(value)) return undefined;
  }
  for (const key of Object.keys(clientInfo)) {
    if (key !== 'name' && key !== 'version' && key !== 'title') return undefined;
  }
  if (clientInfo.title !== undefined && typeof clientInfo.title !== 'string') return undefined;
  for (const key of Object.keys(params)) {
    if (key !== 'protocolVersion' && key !== 'capabilities' && key !== 'clientInfo') return undefined;
  }
  return { id, protocolVersion: params.protocolVersion };
}

/** What the SDK server answers to `initialize` (its `_oninitialize`), for our capabilities. */
export function initializeResult(requestedVersion: string, options: HandshakeOptions) {
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requestedVersion)
      ? requestedVersion
      : LATEST_PROTOCOL_VERSION,
    capabilities: serverCapabilities(options.logging),
    serverInfo: { name: SERVER_NAME, version: options.version, title: SERVER_TITLE },
    instructions: instructionsFor(options.tools),
  };
}

export interface StdioHandshake {
  /** Resolves once the first line has been read (and answered, if it was `initialize`), or stdin ended, or waiting was pointless. */
  readonly settled: Promise<void>;
  /** The id of the `initialize` request answered here: the server's own reply to it is not sent. */
  readonly answeredId: RequestId | undefined;
  /** stdin ended before a whole line arrived: there is nothing for the server to read. */
  readonly ended: boolean;
  /** Lets stdin flow again, to the listener the server's transport has attached. */
  resume(): void;
  /** Done with stdin (the session ended, or the server failed to start): nothing keeps the process alive. */
  close(): void;
}

/**
 * Reads stdin up to the first line feed; answers it when it is an `initialize` request; puts every
 * byte read back. Waits at most `waitMs` for that line (a client sends `initialize` as it starts a
 * server): after that, or on a terminal, the server loads meanwhile.
 */
export function startStdioHandshake(
  options: HandshakeOptions & { waitMs?: number },
  stdin: NodeJS.ReadStream = process.stdin,
  stdout: NodeJS.WriteStream = process.stdout,
): StdioHandshake {
  const chunks: Buffer[] = [];
  let answeredId: RequestId | undefined;
  let ended = false;
  let done = false;
  let settle = () => {};
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.pause();
    if (chunks.length > 0 && !ended) stdin.unshift(Buffer.concat(chunks));
    settle();
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(bytes);
    const newline = bytes.indexOf(10);
    if (newline < 0) return;
    const read = Buffer.concat(chunks);
    const line = read.subarray(0, read.length - bytes.length + newline).toString('utf8');
    const request = initializeRequest(line.trim());
    if (request) {
      answeredId = request.id;
      stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: initializeResult(request.protocolVersion, options) })}\n`,
      );
    }
    finish();
  };
  const onEnd = () => {
    ended = true;
    finish();
  };
  const timer = setTimeout(finish, stdin.isTTY ? 0 : (options.waitMs ?? 50));
  timer.unref();
  stdin.on('data', onData);
  stdin.once('end', onEnd);
  return {
    settled,
    get answeredId() {
      return answeredId;
    },
    get ended() {
      return ended;
    },
    resume: () => {
      stdin.resume();
    },
    close: () => {
      finish();
      stdin.destroy();
    },
  };
}
