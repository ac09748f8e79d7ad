/** The connector contract (test/support/connector-contract.ts) for Threads, on its loopback stand-in. */
import { verifyThreads } from '../../src/publish/connectors/threads/threads-account.js';
import { openThreads } from '../../src/publish/connectors/threads/threads-connector.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { startThreadsServer } from '../support/threads-server.js';

async function setUpThreads(): Promise<ContractWorld> {
  const server = await startThreadsServer();
  const token = server.userToken();
  const verified = await verifyThreads({
    endpoint: server.url,
    secret: token,
    tokens: { accessToken: token, refreshToken: token },
    userAgent: 'contract',
    timeoutMs: 5_000,
  });
  return {
    kit: server.kit,
    open: async (options) => openThreads({ ...verified, channelId: 1 }, contractContext(options)),
    job: contractJob('Threads'),
    createRoute: '/:version/me/threads_publish',
    published: () => server.posts.map((post) => post.id),
    secrets: () => [token],
    account: token,
    refusalStatus: 400,
    refusedJob: {
      job: contractJob('Threads', '😀'.repeat(130)),
      said: 'too long for Threads: 520 characters',
    },
  };
}

connectorContract('threads', setUpThreads, { idempotent: false, steps: { prepare: true } });
