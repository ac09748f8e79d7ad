/**
 * User confirmation over the real protocol: a client that declared elicitation is asked before
 * create_post publishes now, publish_post, delete_post (and update_post to IMMEDIATE). Only accept
 * with confirm true goes ahead; anything else changes nothing and answers isError keyed
 * `confirmation`. A client without elicitation is not asked. callTool resolving means the client's
 * output-schema validation accepted every result.
 */
import type { CallToolResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Post } from '../../src/domain/post-schemas.js';
import { InFlightCalls } from '../../src/mcp/in-flight.js';
import { type McpHarness, openMcpHarness, textOf } from './harness.js';

const CAPTION = 'Holiday blend is back: 20% off today only ☕ (really)';
const NINE_AM =
  'Saturday, November 21, 2026 at 09:00 EST (America/New_York), 2026-11-21T14:00:00.000000Z UTC';
const CONFIRM_SCHEMA = {
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

let h: McpHarness;
let asked: ElicitRequest['params'][];
let answer: () => ElicitResult;

beforeEach(async () => {
  asked = [];
  answer = () => ({ action: 'accept', content: { confirm: true } });
  h = await openMcpHarness({
    elicit: (params) => {
      asked.push(params);
      return answer();
    },
  });
});

afterEach(async () => {
  expect(h.logged).toEqual([]);
  await h.close();
});

function succeeded(result: CallToolResult): Record<string, unknown> {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return (result.structuredContent as { data: Record<string, unknown> }).data;
}

function refused(result: CallToolResult, message: string): void {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toEqual({ status: 'error', message, errors: { confirmation: message } });
  expect(textOf(result)).toContain(message);
}

async function posts(): Promise<Post[]> {
  return (await h.rt.service.listPosts({ brandId: 1 })).data;
}

async function queue(caption = CAPTION): Promise<number> {
  const result = await h.call('create_post', { brandId: 1, collectionId: 1, publishMode: 'QUEUE', caption });
  return succeeded(result).id as number;
}

const immediate = { brandId: 1, collectionId: 1, publishMode: 'IMMEDIATE', caption: CAPTION };

describe('create_post IMMEDIATE', () => {
  it('asks with the exact caption, the channel names and the time, then publishes on accept', async () => {
    const created = succeeded(await h.call('create_post', immediate));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'form', requestedSchema: CONFIRM_SCHEMA });
    const { message } = asked[0]!;
    expect(message).toContain(`Caption: "${CAPTION}"`);
    expect(message).toContain('Northwind Coffee on Instagram');
    expect(message).toContain('Northwind Coffee on Bluesky');
    expect(message).toContain('Northwind Coffee on Pinterest (INACTIVE: will fail)');
    expect(message).toContain('collection "Everywhere"');
    expect(message).toContain('Time: now');
    expect(message).not.toContain('Dry run');

    const post = await h.rt.service.getPost({ brandId: 1, postId: created.id });
    expect(post).toMatchObject({ status: 'publishing', content: { caption: CAPTION } });
  });

  it('shows the poll question of a post without a caption', async () => {
    const poll = { question: 'Oat or whole milk?', options: ['Oat', 'Whole'], period: '1d' };
    succeeded(await h.call('create_post', { ...immediate, caption: undefined, poll }));
    expect(asked[0]?.message).toContain('Poll: "Oat or whole milk?" (options: Oat / Whole)');
  });

  for (const [how, reply] of [
    ['declined', { action: 'decline' }],
    ['cancelled', { action: 'cancel' }],
    ['accepted unchecked', { action: 'accept', content: { confirm: false } }],
  ] as const) {
    it(`creates nothing when the question is ${how}`, async () => {
      answer = () => reply;
      refused(
        await h.call('create_post', immediate),
        'Not published: the user did not confirm, so no post was created.',
      );
      expect(asked).toHaveLength(1);
      expect(await posts()).toEqual([]);
    });
  }

  it('reports validation errors without asking', async () => {
    const result = await h.call('create_post', { ...immediate, caption: 'x'.repeat(3001) });
    expect(result.isError).toBe(true);
    expect(Object.keys((result.structuredContent as { errors: object }).errors)).toEqual(['caption']);
    expect(asked).toEqual([]);
  });

  it('does not ask for other modes, nor for a dry run', async () => {
    await queue();
    succeeded(await h.call('create_post', { ...immediate, dryRun: true }));
    succeeded(await h.call('create_post', { ...immediate, publishMode: 'DRAFT', caption: 'Later' }));
    expect(asked).toEqual([]);
  });
});

describe('publish_post', () => {
  it('asks with the caption, channels and planned time, then publishes on accept', async () => {
    const id = await queue();
    const post = succeeded(await h.call('publish_post', { brandId: 1, postId: id }));
    expect(post).toMatchObject({ id, status: 'publishing' });
    expect(asked).toHaveLength(1);
    const { message } = asked[0]!;
    expect(message).toContain(`Publish post ${id} now`);
    expect(message).toContain(`Caption: "${CAPTION}"`);
    expect(message).toContain('Northwind Coffee on LinkedIn');
    expect(message).toContain(`Planned time: ${NINE_AM}`);
  });

  it('leaves the post queued when the user declines or cancels', async () => {
    const id = await queue();
    for (const action of ['decline', 'cancel'] as const) {
      answer = () => ({ action });
      refused(
        await h.call('publish_post', { brandId: 1, postId: id }),
        `Not published: the user did not confirm, so post ${id} is unchanged (queued for ${NINE_AM}).`,
      );
    }
    const listed = await h.call('list_posts', { brandId: 1, status: 'queued' });
    expect((succeeded(listed) as unknown as Post[]).map((p) => p.id)).toEqual([id]);
    expect((await h.rt.service.getPost({ brandId: 1, postId: id })).deliveries).toEqual([]);
  });

  it('does not ask about a post that cannot be published', async () => {
    const id = await queue();
    await h.rt.service.deletePost({ brandId: 1, postId: id });
    expect((await h.call('publish_post', { brandId: 1, postId: id })).isError).toBe(true);
    expect((await h.call('publish_post', { brandId: 1, postId: 999 })).isError).toBe(true);
    expect(asked).toEqual([]);
  });
});

describe('delete_post', () => {
  it('asks before cancelling a queued post, and cancels on accept', async () => {
    const id = await queue();
    expect(succeeded(await h.call('delete_post', { brandId: 1, postId: id }))).toMatchObject({
      id,
      status: 'cancelled',
    });
    expect(asked[0]?.message).toContain(`Cancel post ${id}?`);
    expect(asked[0]?.message).toContain(`Caption: "${CAPTION}"`);
    expect(asked[0]?.message).toContain('Northwind Coffee on TikTok');
    expect(asked[0]?.message).toContain(`Planned time: ${NINE_AM}`);
  });

  it('keeps the post when the user declines', async () => {
    const id = await queue();
    answer = () => ({ action: 'decline' });
    refused(
      await h.call('delete_post', { brandId: 1, postId: id }),
      `Not cancelled: the user did not confirm, so post ${id} is unchanged (queued for ${NINE_AM}).`,
    );
    expect((await posts()).map((p) => [p.id, p.status])).toEqual([[id, 'queued']]);
  });

  it('asks before deleting a draft, and keeps it unless confirmed', async () => {
    const draft = succeeded(
      await h.call('create_post', { brandId: 1, collectionId: 4, publishMode: 'DRAFT', caption: 'Idea' }),
    ).id as number;
    answer = () => ({ action: 'accept', content: { confirm: false } });
    refused(
      await h.call('delete_post', { brandId: 1, postId: draft }),
      `Not deleted: the user did not confirm, so post ${draft} is unchanged (a draft, no time set).`,
    );
    expect(asked[0]?.message).toContain(`Delete draft ${draft} for good?`);
    expect(asked[0]?.message).toContain('Channels: 0 of collection "Newsletter": none');
    expect(await posts()).toHaveLength(1);
  });
});

describe('update_post', () => {
  it('asks before publishing now, showing the new caption; other changes are not asked about', async () => {
    const id = await queue();
    succeeded(await h.call('update_post', { brandId: 1, postId: id, caption: 'Edited' }));
    expect(asked).toEqual([]);

    answer = () => ({ action: 'decline' });
    const result = await h.call('update_post', {
      brandId: 1,
      postId: id,
      publishMode: 'IMMEDIATE',
      caption: 'Now',
    });
    refused(
      result,
      `Not changed or published: the user did not confirm, so post ${id} is unchanged (queued for ${NINE_AM}).`,
    );
    expect(asked[0]?.message).toContain('Caption: "Now"');
    expect(await h.rt.service.getPost({ brandId: 1, postId: id })).toMatchObject({
      status: 'queued',
      content: { caption: 'Edited' },
    });
  });
});

describe('a graceful close', () => {
  it('waits for calls under way, not for the user to answer', async () => {
    const inFlight = new InFlightCalls();
    let reply: ((result: ElicitResult) => void) | undefined;
    const waiting = await openMcpHarness({
      inFlight,
      elicit: () => new Promise((resolve) => (reply = resolve)),
    });
    try {
      const { id } = await waiting.rt.service.createPost({ ...immediate, publishMode: 'QUEUE' });
      const call = waiting.call('publish_post', { brandId: 1, postId: id });
      await vi.waitFor(() => expect(reply).toBeDefined());
      // Would hang (and time the test out) if the wait for the user counted as work under way.
      await inFlight.settled();
      reply!({ action: 'accept', content: { confirm: true } });
      expect(succeeded(await call)).toMatchObject({ id, status: 'publishing' });
      expect(waiting.logged).toEqual([]);
    } finally {
      await waiting.close();
    }
  });
});

describe('when the question cannot be asked', () => {
  it('treats a failed elicitation as not confirmed and says so', async () => {
    answer = () => {
      throw new Error('the dialog crashed');
    };
    const result = await h.call('create_post', immediate);
    expect(result.isError).toBe(true);
    const body = result.structuredContent as { message: string; errors: { confirmation: string } };
    expect(body.message).toMatch(
      /^Not done: confirmation could not be obtained from the user \(.*crashed.*\)/,
    );
    expect(body.errors).toEqual({ confirmation: body.message });
    expect(await posts()).toEqual([]);
  });

  it('goes ahead without asking a client that has no elicitation', async () => {
    const plain = await openMcpHarness();
    try {
      const created = succeeded(await plain.call('create_post', immediate));
      expect(created.message).toContain('is being published now');
      const queued = succeeded(
        await plain.call('create_post', { ...immediate, publishMode: 'QUEUE', caption: 'Queued' }),
      );
      const other = succeeded(
        await plain.call('create_post', { ...immediate, publishMode: 'QUEUE', caption: 'Queued too' }),
      );
      expect(succeeded(await plain.call('publish_post', { brandId: 1, postId: queued.id }))).toMatchObject({
        status: 'publishing',
      });
      expect(succeeded(await plain.call('delete_post', { brandId: 1, postId: other.id }))).toMatchObject({
        status: 'cancelled',
      });
      expect(plain.logged).toEqual([]);
    } finally {
      await plain.close();
    }
    expect(asked).toEqual([]);
  });
});
