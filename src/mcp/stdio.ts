/** Connects a server to stdin/stdout. stdout belongs to the protocol: nothing else may write there. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { InFlightCalls } from './in-flight.js';

/**
 * Resolves when the client has gone (stdin closed) and the calls it had sent have been answered:
 * a client may write its requests and close stdin at once. `onConnected` runs once the server reads stdin.
 */
export async function serveStdio(
  server: McpServer,
  inFlight: InFlightCalls,
  onConnected: () => void,
): Promise<void> {
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    if (process.stdin.readableEnded) resolve();
    else process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  onConnected();
  await ended;
  // Requests read before the end may still be on their way to a handler: let them arrive first.
  await new Promise((resolve) => setImmediate(resolve));
  await inFlight.settled();
  await new Promise((resolve) => setImmediate(resolve));
  await server.close();
}
