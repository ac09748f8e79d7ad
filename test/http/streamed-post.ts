/**
 * A raw POST to /mcp that streams its body without holding it: `head`, then `size` bytes of spaces in
 * 64 KiB pieces (one buffer, reused) honouring backpressure, then `tail`; it stops sending once the
 * answer arrives. Chunked unless `contentLength` is given; with `stall`, nothing after the head is sent
 * (a declared length the body never fills). For the body-limit tests, in process and against `serve`.
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';

export const MiB = 1024 * 1024;

export interface StreamedPost {
  head: string;
  size: number;
  tail?: string;
  contentLength?: number;
  stall?: boolean;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  /** Bytes of the body written before the answer came. */
  sentBeforeAnswer: number;
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export function postToMcp(baseUrl: string, apiKey: string, options: StreamedPost): Promise<Answer> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...options.headers,
    };
    if (options.contentLength !== undefined) headers['content-length'] = String(options.contentLength);
    // Keep-alive, as real clients are: a `Connection: close` request makes node close the connection
    // right after an early answer, and the client may lose that answer to the reset that follows.
    const agent = new Agent({ keepAlive: true });
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers, agent },
      (res) => {
        answered = true;
        const sentBeforeAnswer = sent;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          req.destroy();
          agent.destroy();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            sentBeforeAnswer,
          });
        });
        res.on('error', reject);
      },
    );
    // Once answered, the server may close the connection on what is still being sent.
    req.on('error', (error) => {
      if (answered) return;
      agent.destroy();
      reject(error);
    });
    const piece = Buffer.alloc(64 * 1024, ' ');
    const write = () => {
      while (!answered && !options.stall && sent < options.size) {
        const n = Math.min(piece.length, options.size - sent);
        sent += n;
        if (!req.write(n === piece.length ? piece : piece.subarray(0, n))) {
          req.once('drain', write);
          return;
        }
      }
      if (!answered && !options.stall) req.end(options.tail);
    };
    req.write(options.head);
    write();
  });
}
