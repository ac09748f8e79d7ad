/**
 * The service contract in-process, on the store of the vitest project (vitest.config.ts): SQLite, and
 * again on PostgreSQL.
 */
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

async function openLocalWorld(): Promise<ContractWorld> {
  const rt = await openTestRuntime({ now: CONTRACT_NOW });
  try {
    // The demo user is resolved as "the only user": do it before the second user exists.
    const service = rt.service;
    await rt.importWorkspace(OTHER_WORKSPACE);
    const other = await rt.serviceFor(OTHER_API_KEY);
    const southern = await rt.serviceFor(SOUTHERN_API_KEY);
    const inspection = openInspection(rt);
    return {
      service,
      other,
      southern,
      clock: rt.clock,
      inspect: inspection.inspect,
      async close() {
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
  `PublishingService contract: local service (${STORE_NAMES[storeUnderTest()]})`,
  openLocalWorld,
  {
    inspection: true,
    clock: true,
  },
);
