/** The service contract on the local service: a real SQLite file in a temporary data directory. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../src/local-runtime.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { openTestRuntime } from '../support/local.js';
import { openInspection } from './inspection.js';
import {
  CONTRACT_NOW,
  type ContractWorld,
  OTHER_API_KEY,
  OTHER_WORKSPACE,
  SOUTHERN_API_KEY,
  type StoredPost,
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
