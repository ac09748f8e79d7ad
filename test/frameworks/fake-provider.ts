/**
 * A model provider's API on loopback, scripted: it records every request and answers the n-th with the
 * n-th reply (JSON, 200). Point a provider's `baseURL` at `url` and the framework talks to it as to the
 * real API, so a test sees the exact request body the provider would receive.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  body: unknown;
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeProvider(replies: readonly unknown[]): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    requests.push({ path: request.url ?? '', body: JSON.parse(text) });
    const reply = replies[requests.length - 1];
    response.writeHead(reply === undefined ? 500 : 200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(reply ?? { error: { message: `no reply scripted for request ${requests.length}` } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
