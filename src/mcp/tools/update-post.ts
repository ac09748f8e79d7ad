import type { z } from 'zod';
import { EDITABLE_STATUSES, Post, UpdatePostRequest } from '../../domain/post-schemas.js';
import { describeStoredPost, requireConfirmation } from '../confirm.js';
import { describePostState, postSummary, warningLines } from '../post-summary.js';
import { defineTool } from '../tool.js';

const KEPT = new Set(['brandId', 'postId', 'publishMode']);

/**
 * The request schema as clients see it: every content field also takes null, which removes it (the
 * tool's description says so), so a client that checks arguments against the JSON Schema lets null
 * through. The service drops nulls itself.
 */
const UpdatePostInput = UpdatePostRequest.extend(
  Object.fromEntries(
    Object.entries(UpdatePostRequest.shape)
      .filter(([key]) => !KEPT.has(key))
      .map(([key, field]) => [key, ((field as z.ZodOptional).unwrap() as z.ZodType).nullable().optional()]),
  ),
);

export const updatePost = defineTool({
  name: 'update_post',
  title: 'Update post',
  toolset: 'lifecycle',
  description: [
    'Changes a draft, queued or scheduled post. Pass only the fields to change: absent ones are kept, null removes one ("link": null).',
    'Same rules as create_post. SCHEDULE with scheduledAt moves it; QUEUE takes the next free queue time (a queued post keeps its own);',
    'IMMEDIATE publishes it now (the user may be asked to confirm). get_post shows the current content.',
  ].join(' '),
  input: UpdatePostInput,
  output: Post,
  // Overwrites content; IMMEDIATE publishes to the platforms.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async handle(service, args, context) {
    if (args.publishMode === 'IMMEDIATE') {
      await requireConfirmation(context, async () => {
        const post = await service.getPost({ brandId: args.brandId, postId: args.postId });
        if (!EDITABLE_STATUSES.has(post.status)) return undefined;
        const content = {
          caption: 'caption' in args ? args.caption : post.content.caption,
          poll: 'poll' in args ? args.poll : post.content.poll,
        };
        return {
          question: await describeStoredPost(
            service,
            post,
            `Publish post ${post.id} now, with the changes given? It cannot be unpublished from here.`,
            content,
          ),
          notDone: `Not changed or published: the user did not confirm, so post ${post.id} is unchanged (${describePostState(post)}).`,
        };
      });
    }
    const post = await service.updatePost(args);
    return {
      body: { status: 'success', data: post },
      summary: [...warningLines(post.warnings), postSummary(post)].join('\n'),
    };
  },
});
