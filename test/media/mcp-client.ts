/**
 * The real SDK client connected in-process (linked in-memory transports) to our MCP server over a media
 * world's service, recording every message the client receives and the calls the server has under way.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { InFlightCalls } from '../../src/mcp/in-flight.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { MediaWorld } from './support.js';

export interface MediaMcp {
  client: Client;
  /** Every message the client received, in order. */
  received: JSONRPCMessage[];
  /** Errors the client reported (e.g. a progress notification for an unknown token). */
  clientErrors: Error[];
  /** What the server reported as unexpected failures. */
  logged: Array<{ message: string; error: unknown }>;
  progressMessages(): JSONRPCMessage[];
  /** Resolves once every call the server started has ended; rejects after `timeoutMs`. */
  serverCallsSettled(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function connectMcp(world: MediaWorld): Promise<MediaMcp> {
  const inFlight = new InFlightCalls();
  const logged: MediaMcp['logged'] = [];
  const server = createMcpServer(world.service, {
    name: 'social-publisher-mcp',
    version: 'test',
    log: (message, error) => logged.push({ message, error }),
    inFlight,
  });
  const client = new Client({ name: 'media-test', version: '1.0.0' });
  const clientErrors: Error[] = [];
  client.onerror = (error) => clientErrors.push(error);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  const received: JSONRPCMessage[] = [];
  const deliver = clientTransport.onmessage!;
  clientTransport.onmessage = (message, extra) => {
    received.push(message);
    deliver(message, extra);
  };
  return {
    client,
    received,
    clientErrors,
    logged,
    progressMessages: () =>
      received.filter((message) => 'method' in message && message.method === 'notifications/progress'),
    async serverCallsSettled(timeoutMs = 5000) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        inFlight.settled(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`a server call was still running after ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}
