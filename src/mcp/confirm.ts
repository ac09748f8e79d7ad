/**
 * User confirmation before what cannot be taken back (publishing now, cancelling, deleting), through
 * MCP elicitation, asked only of clients that declared it. Unless the user accepts and confirms, the
 * tool changes nothing and throws `ConfirmationDeclinedError`, which `results.ts` turns into an
 * `isError` result keyed `confirmation`.
 */
import { randomUUID } from 'node:crypto';
import type {
  ElicitRequestFormParams,
  ElicitResult,
  RequestOptions,
  Server,
} from '@modelcontextprotocol/server';
import type { CreatedPost, Post } from '../domain/post-schemas.js';
import type { PublishingService } from '../service/publishing-service.js';
import { ConfirmationDeclinedError } from './confirmation-declined.js';
import { loadJsonSchemaValidator } from './json-schema-validator.js';
import type { ToolContext } from './tool.js';

/** A person needs longer than the SDK's default 60 s request timeout to read and answer. */
const CONFIRMATION_TIMEOUT_MS = 10 * 60_000;

/** The one-checkbox form of a confirmation (both protocol generations). */
export const CONFIRM_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    confirm: {
      type: 'boolean',
      title: 'Confirm',
      description: 'Check to go ahead; leave unchecked or decline to change nothing.',
    },
  },
  required: ['confirm'],
};

/**
 * The context of one tool call. `options` relate the question to the call (its id, its abort signal),
 * so a transport can route it and a cancelled call stops waiting.
 */
export function confirmationContext(
  server: Server,
  options: RequestOptions,
): Pick<ToolContext, 'canConfirm' | 'confirm' | 'canOpenUrl' | 'openUrl'> {
  // The SDK reads an empty `elicitation: {}` as form mode; a URL-only client cannot be asked a question.
  const canConfirm = server.getClientCapabilities()?.elicitation?.form !== undefined;
  const canOpenUrl = server.getClientCapabilities()?.elicitation?.url !== undefined;
  return {
    canConfirm,
    canOpenUrl,
    async openUrl(message, url) {
      const elicitationId = randomUUID();
      const answer = await server.elicitInput(
        { mode: 'url', message, url, elicitationId },
        { timeout: CONFIRMATION_TIMEOUT_MS, ...options },
      );
      // Sent on the call's own stream: a client without the standalone one hears it too.
      const notify = server.createElicitationCompletionNotifier(elicitationId, {
        relatedRequestId: options.relatedRequestId,
      });
      return { accepted: answer.action === 'accept', completed: () => notify().catch(() => undefined) };
    },
    async confirm(message) {
      if (!canConfirm) return true;
      let answer: ElicitResult;
      try {
        await loadJsonSchemaValidator(); // the SDK checks the answer with it
        answer = await server.elicitInput(
          { mode: 'form', message, requestedSchema: CONFIRM_SCHEMA },
          { timeout: CONFIRMATION_TIMEOUT_MS, ...options },
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ConfirmationDeclinedError(
          `Not done: confirmation could not be obtained from the user (${reason}), so nothing was changed.`,
          { cause: error },
        );
      }
      return answer.action === 'accept' && answer.content?.confirm === true;
    },
  };
}

/** What to ask, and the sentence that says what did not happen when the user does not confirm. */
export interface Confirmation {
  question: string;
  notDone: string;
}

/**
 * Asks the user when the client can ask, and throws unless they confirm. `ask` is only called when a
 * question can be put; it answers undefined when there is nothing to confirm (the call will fail anyway).
 */
export async function requireConfirmation(
  context: ToolContext,
  ask: () => Promise<Confirmation | undefined>,
): Promise<void> {
  if (!context.canConfirm) return;
  const confirmation = await ask();
  if (confirmation && !(await context.confirm(confirmation.question))) {
    throw new ConfirmationDeclinedError(confirmation.notDone);
  }
}

/** "12 of collection "Everywhere": Northwind Coffee on Facebook, ..., ... (INACTIVE: will fail)" */
async function describeChannels(
  service: PublishingService,
  brandId: number,
  collectionId: number,
): Promise<string> {
  for (let page = 1; ; page++) {
    const found = await service.listCollections({ brandId, page, per_page: 100 });
    const collection = found.data.find((candidate) => candidate.id === collectionId);
    if (collection) {
      const names = collection.channels.map(
        (channel) => `${channel.name}${channel.status === 'INACTIVE' ? ' (INACTIVE: will fail)' : ''}`,
      );
      return `${names.length} of collection "${collection.title}": ${names.join(', ') || 'none'}`;
    }
    if (page >= found.pagination.lastPage) return `those of collection ${collectionId}`;
  }
}

/** The exact caption and poll question, as they will go out. */
function describeContent(content: { caption?: unknown; poll?: unknown }): string[] {
  const lines: string[] = [];
  if (typeof content.caption === 'string') lines.push(`Caption: "${content.caption}"`);
  const poll = content.poll as { question?: unknown; options?: unknown } | undefined;
  if (poll && typeof poll.question === 'string') {
    const options = Array.isArray(poll.options) ? ` (options: ${poll.options.join(' / ')})` : '';
    lines.push(`Poll: "${poll.question}"${options}`);
  }
  return lines;
}

/** The question about a post create_post would publish now; `preview` is the dry run's answer. */
export async function describeNewPost(
  service: PublishingService,
  args: Record<string, unknown>,
  preview: CreatedPost,
): Promise<string> {
  const channels = await describeChannels(service, Number(args.brandId), Number(args.collectionId));
  return [
    'Publish this post now? It cannot be unpublished from here.',
    ...describeContent(args),
    `Channels: ${channels}`,
    'Time: now, as soon as you confirm.',
    preview.message.replace(/^Dry run[^:]*: valid\. /, ''),
  ].join('\n');
}

/** The question about a stored post: `question`, then what it says, where it goes and its planned time. */
export async function describeStoredPost(
  service: PublishingService,
  post: Post,
  question: string,
  content: { caption?: unknown; poll?: unknown } = post.content,
): Promise<string> {
  // Local times need the date library: loaded here, not by every server that can ask a question.
  const [channels, { describePostTime }] = await Promise.all([
    describeChannels(service, post.brandId, post.collectionId),
    import('./post-summary.js'),
  ]);
  return [
    question,
    ...describeContent(content),
    `Channels: ${channels}`,
    `Planned time: ${describePostTime(post)}`,
  ].join('\n');
}
