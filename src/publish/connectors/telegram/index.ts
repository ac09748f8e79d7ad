/**
 * The Telegram module: a bot (its token from @BotFather) posting to one channel or group through the
 * Bot API, or a self-hosted Bot API server. The Bot API cannot deduplicate a send.
 */
import type { ConnectorModule } from '../module.js';

export const telegram: ConnectorModule<'telegram'> = {
  kind: 'telegram',
  channelType: 'Telegram',
  displayName: 'Telegram',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'chat',
        role: 'account',
        value: 'CHAT',
        required: true,
        help: "the channel's or group's @username, t.me link or numeric id",
      },
      {
        name: 'token-env',
        role: 'secret',
        value: 'VAR',
        help: 'the environment variable that holds the bot token',
      },
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://api.telegram.org',
        help: 'a self-hosted Bot API server',
      },
    ],
    secretPrompt: () => 'Bot token from @BotFather: ',
    verify: async ({ endpoint, account, secret, userAgent, timeoutMs }) =>
      (await import('./telegram-account.js')).verifyTelegram({
        apiRoot: endpoint,
        token: secret,
        chat: account ?? '',
        userAgent,
        timeoutMs,
      }),
  },
  describe: { account: '@channel or chat id', address: 'Telegram Bot API root' },
  importedSettings: (accountId) => ({ chatId: accountId }),
  load: async () => (await import('./telegram-connector.js')).openTelegram,
};
