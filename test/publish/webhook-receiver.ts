/** A real HTTP receiver on 127.0.0.1 that records every request and answers from a script. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  /** performance.now() when the request's body had fully arrived. */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** 'hang' never answers: the client has to give up on its own. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** `reply` gets the 0-based index of the request. */
export async function startReceiver(reply: (index: number) => Reply): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = requests.length;
      requests.push({
        at: performance.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = reply(index);
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/social?token=abc`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 with nothing listening (taken, then released). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
