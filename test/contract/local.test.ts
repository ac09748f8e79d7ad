import { openTestRuntime } from '../support/local.js';
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
  const rt = openTestRuntime({ now: CONTRACT_NOW });
  try {
    // The demo user is resolved as "the only user": do it before the second user exists.
    const service = rt.service;
    rt.importWorkspace(OTHER_WORKSPACE);
    const other = rt.serviceFor(OTHER_API_KEY);
    const southern = rt.serviceFor(SOUTHERN_API_KEY);
    const inspection = openInspection(rt.dataDir);
    return {
      service,
      other,
      southern,
      clock: rt.clock,
      inspect: inspection.inspect,
      async close() {
        inspection.close();
        rt.close();
      },
    };
  } catch (error) {
    rt.close();
    throw error;
  }
}

serviceContract('PublishingService contract: local service (SQLite)', openLocalWorld, {
  inspection: true,
  clock: true,
});
