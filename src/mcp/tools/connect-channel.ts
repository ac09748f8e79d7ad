import { z } from 'zod';
import { ConnectionRequest } from '../../oauth/server-sign-in.js';
import { ChannelDetail } from '../../publish/connectors/schemas.js';
import { ConfirmationDeclinedError } from '../confirmation-declined.js';
import { defineTool } from '../tool.js';

/** What the tool answers before the sign-in ends (a client that cannot open the address itself). */
const Started = z.object({
  authorizationUrl: z.string().describe('The address the user opens to sign in and approve the app'),
  expiresAt: z.string().describe('Until when the address works (UTC)'),
});

export const connectChannel = defineTool({
  name: 'connect_channel',
  title: 'Connect an account',
  toolset: 'connections',
  description: [
    'Connects an account as a channel of the brand: the user signs in and approves on the platform itself (no secret passes here).',
    'Answers the channel once approved, or the address to give the user when the client cannot open it.',
  ].join(' '),
  input: ConnectionRequest,
  output: z.union([ChannelDetail, Started]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async handle(service, args, context) {
    // A 2026-07-28 client brings the user's answer in a second call: the same sign-in, not a new one.
    const started =
      (context.carried?.started as z.infer<typeof Started> | undefined) ??
      (await service.startConnection(args));
    const until = `valid until ${started.expiresAt}`;
    if (!context.canOpenUrl || !service.connectionCompleted) {
      return {
        body: { status: 'success', data: started },
        summary: `Give the user this address to sign in and approve the app (${until}):\n${started.authorizationUrl}\nOnce they approve, the channel appears in list_channels (get_channel shows its account).`,
      };
    }
    const opened = await context.openUrl(
      `Sign in to ${String(args.platform)} and approve social-publisher-mcp to connect the account (${until}).`,
      started.authorizationUrl,
      { started },
    );
    if (!opened.accepted) {
      throw new ConfirmationDeclinedError('Not connected: the user did not open the sign-in page.');
    }
    const done = service.connectionCompleted(started.authorizationUrl);
    const aborted = new Promise<never>((_, reject) => {
      context.signal.addEventListener('abort', () => reject(new Error('The call was cancelled.')), {
        once: true,
      });
    });
    aborted.catch(() => undefined);
    try {
      const channel = await context.waitForUser(Promise.race([done, aborted]));
      return {
        body: { status: 'success', data: channel },
        summary: `Connected ${channel.connection.account ?? channel.name} as the channel "${channel.name}" (id ${channel.id}).`,
      };
    } finally {
      await opened.completed();
    }
  },
});
