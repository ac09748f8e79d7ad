/**
 * The contract of PublishingService (http-interface.md + product.md), written once and run against
 * every implementation: the local service (local.test.ts) and the remote client through the REST API
 * (remote.test.ts), each on SQLite and again on PostgreSQL (vitest.config.ts). An implementation only
 * supplies `open`, which must provide the world described below.
 *
 * The world every `open()` must give:
 * - `service` acts as the demo user of product.md's demo workspace (brands 1 and 2, channels 1..16,
 *   collections 1..5, ids in declaration order), in a store holding nothing else but OTHER_WORKSPACE;
 * - `other` acts as the first user of OTHER_WORKSPACE, who sees only its own two brands (Europe/Paris);
 * - `southern` acts as its second user, who sees only "Harbour Sydney" (Australia/Sydney);
 * - the service's clock stands still at CONTRACT_NOW (07:00 in New York, 21:00 in Tokyo) unless a
 *   test moves it through `clock` (given only with the `clock` option);
 * - uploadMedia reads local paths of the machine that runs the tests.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import { createPostRulesContract } from './create-post-rules.contract.js';
import { createPostValidationContract } from './create-post-validation.contract.js';
import { dstContract } from './dst.contract.js';
import { lifecycleContract } from './lifecycle.contract.js';
import { listsContract } from './lists.contract.js';
import { queueContract } from './queue.contract.js';
import { safetyContract } from './safety.contract.js';
import { uploadMediaContract } from './upload-media.contract.js';
import type { ContractContext, ContractOptions, ContractWorld } from './world.js';

export * from './world.js';

export function serviceContract(
  name: string,
  open: () => Promise<ContractWorld>,
  options: ContractOptions = { inspection: false },
): void {
  describe(name, () => {
    let current: ContractWorld | undefined;
    beforeEach(async () => {
      current = await open();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });
    const ctx: ContractContext = {
      get world() {
        if (!current) throw new Error('The contract world is not open.');
        return current;
      },
      get service() {
        return ctx.world.service;
      },
      get other() {
        return ctx.world.other;
      },
      get southern() {
        return ctx.world.southern;
      },
      clock() {
        const clock = ctx.world.clock;
        if (!clock) throw new Error('This implementation gives no movable clock.');
        return clock;
      },
      inspect() {
        const inspect = ctx.world.inspect;
        if (!inspect) throw new Error('This implementation gives no store inspection.');
        return inspect;
      },
      options,
    };

    listsContract(ctx);
    uploadMediaContract(ctx);
    describe('createPost', () => {
      createPostValidationContract(ctx);
      createPostRulesContract(ctx);
      safetyContract(ctx);
    });
    lifecycleContract(ctx);
    queueContract(ctx);
    dstContract(ctx);
  });
}
