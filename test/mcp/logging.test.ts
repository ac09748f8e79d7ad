/**
 * MCP logging of publishing through the real SDK client: the scheduler (and the webhook publisher) tell
 * the server's event feed what happens to posts, and the client gets those of its user's brands as
 * notifications/message, at or above the level it set.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PublishingEventFeed } from '../../src/mcp/logging.js';
import type { Publisher } from '../../src/ports.js';
import { SandboxPublisher } from '../../src/publish/sandbox-publisher.js';
import { Scheduler } from '../../src/publish/scheduler.js';
import { WebhookPublisher } from '../../src/publish/webhook-publisher.js';
import { type Receiver, startReceiver } from '../publish/webhook-receiver.js';
import { type McpHarness, openMcpHarness } from './harness.js';

const EVERYWHERE = 1; // 12 channels, Pinterest INACTIVE
const VISUAL = 2; // Instagram, Facebook, Pinterest (INACTIVE), TikTok, YouTube: no polls
const CONVERSATION = 3; // 6 channels

type Message = LoggingMessageNotification['params'];

let h: McpHarness;
let feed: PublishingEventFeed;
let hearingOthers = 0;
let received: Message[];
let scheduler: Scheduler | undefined;
let receiver: Receiver | undefined;

function listen(client: Client): Message[] {
  const messages: Message[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    messages.push(notification.params);
  });
  return messages;
}

function schedulerWith(publisher: Publisher): Scheduler {
  scheduler = new Scheduler({ store: h.rt.runtime.store, clock: h.rt.clock, publisher, events: feed.emit });
  return scheduler;
}

const sandbox = () => new SandboxPublisher(h.rt.runtime.store.sandbox, h.rt.clock);

async function create(args: Record<string, unknown>): Promise<number> {
  const created = await h.rt.service.createPost({ brandId: 1, caption: 'Hello', ...args });
  return created.id!;
}

/** Waits until a message with this text has arrived (notifications come after the tick, in order). */
async function waitFor(messages: Message[], data: string): Promise<void> {
  for (let i = 0; i < 200 && !messages.some((m) => m.data === data); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(messages.map((m) => m.data)).toContain(data);
}

beforeEach(async () => {
  // What serve does with the feed: hear the other instances' events while a session listens.
  hearingOthers = 0;
  feed = new PublishingEventFeed(() => {
    hearingOthers++;
    return () => hearingOthers--;
  });
  h = await openMcpHarness({ publishingEvents: feed });
  received = listen(h.client);
});

afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
  await receiver?.close();
  receiver = undefined;
  await h.close();
});

describe('MCP logging of publishing', () => {
  it('declares logging and sends what the scheduler does to a post, level by level', async () => {
    expect(h.client.getServerCapabilities()?.logging).toEqual({});
    await h.client.setLoggingLevel('info');
    const id = await create({
      collectionId: EVERYWHERE,
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-21 08:30:00',
    });
    h.rt.clock.set(Date.parse('2026-11-21T13:30:00Z'));
    expect(await schedulerWith(sandbox()).runOnce()).toMatchObject({ started: 1, sent: 11 });

    await waitFor(received, `post ${id}: partially published`);
    expect(received).toEqual([
      { level: 'info', logger: 'publishing', data: `post ${id}: publishing to 11 of 12 channels` },
      {
        level: 'warning',
        logger: 'publishing',
        data: `post ${id} to Northwind Coffee on Pinterest failed: The channel "Northwind Coffee on Pinterest" is INACTIVE (disconnected or needs re-authorization): reconnect it, then publish again.`,
      },
      { level: 'warning', logger: 'publishing', data: `post ${id}: partially published` },
    ]);
  });

  it('honours logging/setLevel: at error only a post that reached no channel is sent', async () => {
    await h.client.setLoggingLevel('error');
    const partly = await create({ collectionId: EVERYWHERE, publishMode: 'IMMEDIATE' });
    // A poll alone reaches none of Visual's platforms: skipped everywhere, Pinterest INACTIVE.
    const none = await create({
      collectionId: VISUAL,
      publishMode: 'SCHEDULE',
      scheduledAt: '2026-11-21 08:00:00',
      caption: undefined,
      poll: { question: 'Light or dark?', options: ['Light', 'Dark'], period: '1d' },
    });
    const tick = schedulerWith(sandbox());
    await tick.runOnce();
    h.rt.clock.set(Date.parse('2026-11-21T13:00:00Z'));
    await tick.runOnce();
    expect((await h.rt.service.getPost({ brandId: 1, postId: partly })).status).toBe('partially_published');

    await waitFor(received, `post ${none}: failed`);
    expect(received).toEqual([{ level: 'error', logger: 'publishing', data: `post ${none}: failed` }]);
  });

  it("sends the publisher's retries and failures, and auto-comments", async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    const webhook = new WebhookPublisher({
      url: receiver.url,
      secret: 'secret',
      maxAttempts: 2,
      baseDelayMs: 1,
      log: () => undefined,
      events: feed.emit,
    });
    await h.client.setLoggingLevel('warning');
    const id = await create({ collectionId: CONVERSATION, publishMode: 'IMMEDIATE' });
    await schedulerWith(webhook).runOnce();
    await webhook.close();

    await waitFor(received, `post ${id}: failed`);
    const data = received.map((m) => m.data as string);
    const retries = data.filter((text) => text.endsWith('on attempt 1 of 2; retrying'));
    expect(retries).toHaveLength(6);
    expect(retries).toContain(
      `post ${id}: delivery to Northwind Coffee on X/Twitter: the webhook answered 503 Service Unavailable on attempt 1 of 2; retrying`,
    );
    const failures = data.filter((text) => text.includes('failed: The webhook answered 503'));
    expect(failures).toHaveLength(6);
    expect(failures.every((text) => /^delivery \d+ of post \d+ to Northwind Coffee on /.test(text))).toBe(
      true,
    );
    expect(received.filter((m) => m.level === 'info')).toEqual([]);
    expect(received.at(-1)).toEqual({ level: 'error', logger: 'publishing', data: `post ${id}: failed` });

    // Auto-comments are told too (info), once the level lets them through.
    await h.client.setLoggingLevel('info');
    received.length = 0;
    const commented = await create({
      collectionId: CONVERSATION,
      publishMode: 'IMMEDIATE',
      comment: { comment: 'First!', delay: 60 },
    });
    const tick = schedulerWith(sandbox());
    await tick.runOnce();
    h.rt.clock.advance(60_000);
    await tick.runOnce();
    await waitFor(received, `post ${commented}: auto-comment posted on Northwind Coffee on Telegram`);
    expect(received.filter((m) => (m.data as string).includes('auto-comment posted'))).toHaveLength(6);
  });

  it("does not send another user's brand, and stops listening when the session closes", async () => {
    const ids = await h.rt.importWorkspace({
      brands: [
        {
          title: 'Harbor Bakery',
          timezone: 'Europe/Paris',
          channels: [{ name: 'Harbor on X', type: 'X/Twitter' }],
          collections: [{ title: 'All', channels: ['Harbor on X'] }],
        },
      ],
      users: [{ name: 'Bo', timezone: 'UTC', apiKey: 'user-b-key-0123456789', brands: ['Harbor Bakery'] }],
    });
    const harbor = ids.brands[0]!;
    const bo = await h.rt.serviceFor('user-b-key-0123456789');
    await h.client.setLoggingLevel('info');
    const bos = await bo.createPost({
      brandId: harbor.id,
      collectionId: harbor.collections[0]!.id,
      publishMode: 'IMMEDIATE',
      caption: 'Fresh bread',
    });
    const tick = schedulerWith(sandbox());
    await tick.runOnce();
    expect((await bo.getPost({ brandId: harbor.id, postId: bos.id! })).status).toBe('published');
    // Told after Bo's post: had Bo's events been sent here, they would have arrived first.
    const mine = await create({ collectionId: CONVERSATION, publishMode: 'IMMEDIATE' });
    await tick.runOnce();
    await waitFor(received, `post ${mine}: published`);
    expect(received.filter((m) => (m.data as string).includes(`post ${bos.id}`))).toEqual([]);

    expect(feed.size).toBe(1);
    expect(hearingOthers).toBe(1);
    await h.client.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(feed.size).toBe(0);
    expect(hearingOthers).toBe(0);
  });
});

it('hears the other instances from the first session that listens until the last one leaves', () => {
  const told: string[] = [];
  let hearing = 0;
  const relayed = new PublishingEventFeed((emit) => {
    hearing++;
    // The relay hands the other instances' events to the feed's sessions.
    emit({ level: 'info', message: 'post 9: published elsewhere', brandId: 1, postId: 9 });
    return () => hearing--;
  });
  expect(hearing).toBe(0);
  const first = relayed.subscribe((event) => told.push(`first: ${event.message}`));
  const second = relayed.subscribe((event) => told.push(`second: ${event.message}`));
  expect(hearing).toBe(1);
  expect(told).toEqual(['first: post 9: published elsewhere']);
  first();
  expect(hearing).toBe(1);
  second();
  expect(hearing).toBe(0);
  relayed.subscribe(() => undefined)();
  expect(hearing).toBe(0);
});
