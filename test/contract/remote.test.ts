/**
 * The service contract through the REST API: the remote client (undici) against a real `serve` app on
 * loopback, over the store of the vitest project (SQLite, and again PostgreSQL: vitest.config.ts) and a
 * fake clock. Same tests, same results as in-process.
 */
import { createHttpApp, listen } from '../../src/http/serve.js';
import { RemotePublishingService } from '../../src/remote/remote-service.js';
import { issueMissingApiKeys } from '../../src/service/acting-user.js';
import { openTestRuntime, STORE_NAMES, storeUnderTest } from '../support/local.js';
import { openInspection } from './inspection.js';
import {
  CONTRACT_NOW,
  type ContractWorld,
  OTHER_API_KEY,
  OTHER_WORKSPACE,
  SOUTHERN_API_KEY,
  serviceContract,
} from './service-contract.js';

async function openRemoteWorld(): Promise<ContractWorld> {
  const rt = await openTestRuntime({ now: CONTRACT_NOW });
  try {
    const [demo] = await issueMissingApiKeys(rt.runtime.store);
    await rt.importWorkspace(OTHER_WORKSPACE);
    const http = createHttpApp({
      runtime: rt.runtime,
      version: 'test',
      loopbackOnly: true,
      log: (message, error) => console.error(message, error),
    });
    const server = await listen(http, { host: '127.0.0.1', port: 0 });
    const remote = (apiKey: string) =>
      new RemotePublishingService({ baseUrl: `${server.url}/v1`, apiKey, maxRetries: 0 });
    const clients = [remote(demo!.apiKey), remote(OTHER_API_KEY), remote(SOUTHERN_API_KEY)] as const;
    const inspection = openInspection(rt);
    return {
      service: clients[0],
      other: clients[1],
      southern: clients[2],
      clock: rt.clock,
      inspect: inspection.inspect,
      async close() {
        await Promise.all(clients.map((client) => client.close()));
        await server.close();
        await inspection.close();
        await rt.close();
      },
    };
  } catch (error) {
    await rt.close();
    throw error;
  }
}

serviceContract(
  `PublishingService contract: remote client against serve (REST over loopback, ${STORE_NAMES[storeUnderTest()]})`,
  openRemoteWorld,
  {
    inspection: true,
    clock: true,
  },
);
