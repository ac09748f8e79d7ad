/**
 * MCP over stdin/stdout, both protocol generations: the SDK's stdio entry reads the client's first
 * message (an `initialize` of 2025-11-25 and before, or a 2026-07-28 request with its `_meta` envelope)
 * and makes one server of that generation for the connection. stdout belongs to the protocol: nothing
 * else may write there.
 */
import { PassThrough } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio as serveConnection } from '@modelcontextprotocol/server/stdio';
import type { InFlightCalls } from './in-flight.js';

/**
 * Resolves when the client has gone (stdin closed) and the calls it had sent have been answered:
 * a client may write its requests and close stdin at once. The transport reads a copy of stdin that
 * ends only then (the SDK's transport stops sending once its input ends). `onConnected` runs once the
 * server reads stdin.
 */
export async function serveStdio(
  createServer: (era: 'legacy' | 'modern') => McpServer,
  inFlight: InFlightCalls,
  onConnected: () => void,
): Promise<void> {
  const stdin = process.stdin;
  const input = new PassThrough();
  const ended = new Promise<void>((resolve) => {
    if (stdin.readableEnded || stdin.destroyed) resolve();
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  stdin.pipe(input, { end: false });
  const connection = serveConnection(({ era }) => createServer(era), {
    transport: new StdioServerTransport(input), // and stdout
  });
  onConnected();
  await ended;
  // Requests read before the end may still be on their way to a handler: let them arrive first.
  await new Promise((resolve) => setImmediate(resolve));
  await inFlight.settled();
  await new Promise((resolve) => setImmediate(resolve));
  input.end();
  await connection.close();
}
