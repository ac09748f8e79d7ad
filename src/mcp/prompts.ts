/**
 * MCP prompts for the common jobs: `draft_post` (one post for a collection, with the rules of each of its
 * channels' platforms) and `plan_week` (a week of queued posts in the brand's free queue times). Each
 * reads the workspace through the service and returns one user message with the facts and the steps.
 * Prompt arguments are strings in MCP; ids are checked here, with messages that say where ids come from.
 */

import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import { completable, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Queue } from '../domain/post-schemas.js';
import type { Brand, Collection } from '../domain/schemas.js';
import type { PublishingService } from '../service/publishing-service.js';
import { completeBrandId, completeCollectionId } from './completions.js';
import { channelLines, postRules } from './prompt-rules.js';
import {
  allCollections,
  answering,
  type ErrorLog,
  findBrand,
  findCollection,
  parseId,
  requestError,
  requireId,
} from './workspace-lookup.js';

const MAX_POSTS_PER_DAY = 10;
/** get_queue shows at most this many free slots. */
const MAX_SLOTS = 50;

function userMessage(description: string, lines: string[]): GetPromptResult {
  return {
    description,
    messages: [{ role: 'user', content: { type: 'text', text: lines.join('\n') } }],
  };
}

function brandLine(brand: Brand, queue: Queue): string {
  return `Brand: "${brand.title}" (brandId ${brand.id}), timezone ${queue.timezone}; local time now ${queue.localNow} (${queue.now} UTC).`;
}

function timingLines(collection: Collection, queue: Queue): string[] {
  if (collection.channels.length === 0) {
    return ['- publishMode must be DRAFT for this collection; scheduledAt may still note the planned time.'];
  }
  const next = queue.nextSlots[0];
  return [
    next
      ? `- publishMode QUEUE takes the next free queue time: ${next.scheduledAt} (${next.at} UTC).`
      : '- The brand has no free queue time: use SCHEDULE or DRAFT.',
    '- SCHEDULE goes out at scheduledAt, IMMEDIATE at once, DRAFT is only saved. Ask the user if unclear; DRAFT is the safe default.',
  ];
}

function draftPost(brand: Brand, collection: Collection, queue: Queue, topic: string, tone?: string) {
  return userMessage(`Draft a post for ${brand.title}, collection ${collection.title}`, [
    `Draft one social-media post about: ${topic}`,
    tone ? `Tone: ${tone}.` : "Tone: the brand's usual voice.",
    '',
    brandLine(brand, queue),
    `Collection: "${collection.title}" (collectionId ${collection.id}). The post goes to every channel in it:`,
    ...channelLines(collection.channels),
    '',
    'Rules for this post:',
    ...postRules(collection.channels),
    '',
    'When it goes out:',
    `- scheduledAt is a local wall-clock time in ${queue.timezone} (the brand's timezone, not UTC), format Y-m-d H:i:s, and must be in the future.`,
    ...timingLines(collection, queue),
    '',
    'Steps:',
    '1. Write the post (caption, and a poll, title or link only where the rules above say they are used).',
    `2. Call create_post with brandId ${brand.id}, collectionId ${collection.id}, the publishMode and the post's fields, with dryRun: true first: it checks everything and stores nothing. Fix any field it names, then call again without dryRun.`,
    '3. Tell the user what each channel will receive, and which channels will not get the post and why.',
  ]);
}

function planWeek(brand: Brand, queue: Queue, collections: Collection[], theme: string, perDay: number) {
  const total = perDay * 7;
  const slots = queue.nextSlots.map((slot) => `- ${slot.scheduledAt} (${slot.at} UTC)`);
  const collectionLines = collections.map((collection) => {
    const channels = collection.channels.map(
      (c) => `${c.type}${c.status === 'INACTIVE' ? ' (INACTIVE)' : ''}`,
    );
    return channels.length
      ? `- collectionId ${collection.id}: ${collection.title}: ${channels.join(', ')}`
      : `- collectionId ${collection.id}: ${collection.title}: no channels (DRAFT only, not for queued posts)`;
  });
  const notes: string[] = [];
  if (queue.queueTimes.length === 0) {
    notes.push(
      'The brand has no queue times, so QUEUE cannot place posts: use SCHEDULE with scheduledAt instead.',
    );
  } else if (perDay > queue.queueTimes.length) {
    notes.push(
      `The brand has ${queue.queueTimes.length} queue times a day, fewer than ${perDay}: queued posts would run past one week. Queue ${queue.queueTimes.length} a day, or SCHEDULE the others at local times you pick.`,
    );
  }
  if (total > slots.length && slots.length > 0) {
    notes.push(
      `Only the next ${slots.length} free slots are listed; the later ones follow the same daily times.`,
    );
  }
  return userMessage(`Plan a week of queued posts for ${brand.title}`, [
    `Plan one week of posts on the theme: ${theme}`,
    '',
    brandLine(brand, queue),
    `Daily queue times (local): ${queue.queueTimes.join(', ') || 'none'}.`,
    `Already queued: ${queue.queued.length} post${queue.queued.length === 1 ? '' : 's'} (their times are taken).`,
    'Next free queue times, in the order QUEUE posts take them:',
    ...(slots.length ? slots : ['- none']),
    ...notes,
    '',
    'Collections (a post goes to every channel of its collection):',
    ...(collectionLines.length ? collectionLines : ['- none: the brand has no collections']),
    '',
    'Steps:',
    `1. Draft ${total} posts (${perDay} a day for 7 days) on the theme: varied, each able to stand alone; caption 1 to 3000 characters.`,
    '2. Pick the collection of each post (ask the user if unclear). INACTIVE channels will not receive posts.',
    `3. Create them in the order they should go out, one create_post call each, with brandId ${brand.id}, the collectionId, publishMode "QUEUE" and the post's fields: each takes the next free time above. A dryRun: true call first checks a post without storing it.`,
    `4. Call get_queue with brandId ${brand.id} and show the user the plan in local times.`,
  ]);
}

export function registerPrompts(server: McpServer, service: PublishingService, log: ErrorLog): void {
  const brandId = completable(
    z.string().describe('Brand id, from list_brands (completion offers your brands)'),
    completeBrandId(service, log),
  );
  const invalid = ProtocolErrorCode.InvalidParams;

  server.registerPrompt(
    'draft_post',
    {
      title: 'Draft a post',
      description:
        "Drafts one post for a collection with each of its channels' platform rules in mind (caption length, polls, Stories, titles, INACTIVE channels) and creates it with create_post.",
      argsSchema: z.object({
        brandId,
        collectionId: completable(
          z.string().describe('Collection id, from list_collections: the post goes to every channel in it'),
          completeCollectionId(service, log),
        ),
        topic: z.string().describe('What the post is about'),
        tone: z.string().optional().describe('How it should sound, e.g. "warm, a little playful"'),
      }),
    },
    (args) =>
      answering(log, invalid, async () => {
        const brand = await findBrand(service, requireId(args.brandId, 'brandId'));
        const collection = await findCollection(service, brand, requireId(args.collectionId, 'collectionId'));
        const queue = await service.getQueue({ brandId: brand.id, count: 1 });
        return draftPost(brand, collection, queue, args.topic, args.tone?.trim() || undefined);
      }),
  );

  server.registerPrompt(
    'plan_week',
    {
      title: 'Plan a week of queued posts',
      description:
        "Plans a week of posts on a theme in the brand's free queue times (timezone, local time, queue times and next free slots included) and creates them with publishMode QUEUE.",
      argsSchema: z.object({
        brandId,
        theme: z.string().describe('What the week is about'),
        postsPerDay: z
          .string()
          .optional()
          .describe(`Posts a day, 1 to ${MAX_POSTS_PER_DAY} (default: one per daily queue time)`),
      }),
    },
    (args) =>
      answering(log, invalid, async () => {
        const brand = await findBrand(service, requireId(args.brandId, 'brandId'));
        const given = args.postsPerDay?.trim() ? parseId(args.postsPerDay) : undefined;
        if (args.postsPerDay?.trim() && (given === undefined || given > MAX_POSTS_PER_DAY)) {
          throw requestError(invalid, `postsPerDay must be a whole number from 1 to ${MAX_POSTS_PER_DAY}.`);
        }
        const perDay =
          given ?? Math.max(1, (await service.getQueue({ brandId: brand.id, count: 1 })).queueTimes.length);
        const count = Math.min(MAX_SLOTS, perDay * 7);
        const [queue, collections] = await Promise.all([
          service.getQueue({ brandId: brand.id, count }),
          allCollections(service, brand.id),
        ]);
        return planWeek(brand, queue, collections, args.theme, perDay);
      }),
  );
}
