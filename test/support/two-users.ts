/**
 * Two users of one store for the `/mcp` tests: Ada, with the demo brands Northwind Coffee (1) and Kite &
 * Key Studio (2), and Bo, with Harbor Bakery (3). And `serve`'s HTTP app on a loopback port, whose every
 * unexpected error fails the test.
 */
import { createHttpApp, listen, type RunningServer } from '../../src/http/serve.js';
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import type { TestRuntime } from './local.js';

export const KEY_A = 'user-a-key-0123456789';
export const KEY_B = 'user-b-key-0123456789';

/** Bo's Harbor Bakery has `harborChannels` (default: one X channel), all in its collection "All". */
export function twoUsers(
  harborChannels: NonNullable<NonNullable<Workspace['brands']>[number]['channels']> = [
    { name: 'Harbor on X', type: 'X/Twitter' },
  ],
): Workspace {
  return {
    brands: [
      {
        title: 'Harbor Bakery',
        timezone: 'Europe/Paris',
        channels: harborChannels,
        collections: [{ title: 'All', channels: harborChannels.map((channel) => channel.name) }],
      },
    ],
    users: [
      { name: 'Ada', timezone: 'UTC', apiKey: KEY_A, brands: ['Northwind Coffee', 'Kite & Key Studio'] },
      { name: 'Bo', timezone: 'UTC', apiKey: KEY_B, brands: ['Harbor Bakery'] },
    ],
  };
}

/** `serve`'s app on 127.0.0.1, port 0, loopback only; `options` as createHttpApp takes them. */
export async function serveOnLoopback(
  rt: TestRuntime,
  options: Partial<Parameters<typeof createHttpApp>[0]> = {},
) {
  const http = createHttpApp({
    runtime: rt.runtime,
    version: 'test',
    loopbackOnly: true,
    log: (message, error) => {
      throw new Error(`unexpected server error: ${message}: ${String(error)}`);
    },
    ...options,
  });
  const server: RunningServer = await listen(http, { host: '127.0.0.1', port: 0 });
  return { http, server };
}
