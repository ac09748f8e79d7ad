/** The connector contract (test/support/connector-contract.ts) for Telegram, on its Bot API stand-in. */
import { verifyTelegram } from '../../src/publish/connectors/telegram/telegram-account.js';
import { openTelegram } from '../../src/publish/connectors/telegram/telegram-connector.js';
import {
  type ContractWorld,
  connectorContract,
  contractContext,
  contractJob,
} from '../support/connector-contract.js';
import { BOT_PATH, startTelegramServer } from '../support/telegram-server.js';

async function setUpTelegram(): Promise<ContractWorld> {
  const server = await startTelegramServer();
  const verified = await verifyTelegram({
    apiRoot: server.url,
    token: server.token,
    chat: '@northwind_news',
  });
  return {
    kit: server.kit,
    open: async (options) => openTelegram({ ...verified, channelId: 1 }, contractContext(options)),
    job: contractJob('Telegram'),
    createRoute: BOT_PATH,
    published: () => server.messages.map((message) => String(message.messageId)),
    secrets: () => server.kit.credentials.all(),
    refusedJob: {
      job: contractJob('Telegram', 'x'.repeat(4097)),
      said: 'Bad Request: message is too long',
    },
  };
}

connectorContract('telegram', setUpTelegram, { idempotent: false });
