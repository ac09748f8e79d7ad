/** Connects a server to stdin/stdout. stdout belongs to the protocol: nothing else may write there. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { StdioHandshake } from './handshake.js';
import type { InFlightCalls } from './in-flight.js';

/** The stdio transport after `startStdioHandshake`: the server's reply to the `initialize` already answered is not sent twice. */
class HandedOverStdioTransport extends StdioServerTransport {
  constructor(
    private answeredId: string | number | undefined,
    private readonly log: (message: string, error: unknown) => void,
  ) {
    super();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.answeredId !== undefined && 'id' in message && message.id === this.answeredId) {
      this.answeredId = undefined;
      if ('error' in message) {
        this.log('the server refused an initialize request the handshake had accepted', message.error);
      }
      return Promise.resolve();
    }
    return super.send(message);
  }
}

/**
 * Resolves when the client has gone (stdin closed) and the calls it had sent have been answered:
 * a client may write its requests and close stdin at once.
 */
export async function serveStdio(
  server: McpServer,
  inFlight: InFlightCalls,
  handshake: StdioHandshake,
  log: (message: string, error: unknown) => void,
): Promise<void> {
  const transport = new HandedOverStdioTransport(handshake.answeredId, log);
  const ended = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    if (handshake.ended) resolve();
    else process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  handshake.resume();
  await ended;
  // Requests read before the end may still be on their way to a handler: let them arrive first.
  await new Promise((resolve) => setImmediate(resolve));
  await inFlight.settled();
  await new Promise((resolve) => setImmediate(resolve));
  await server.close();
}
