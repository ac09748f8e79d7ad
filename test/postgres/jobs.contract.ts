/**
 * The DeliveryStore and JobStore ports' semantics, for any adapter: deliveries as written, each pending
 * one with its send job; one claim path for every kind of job, under an owner's lease (and what a claim
 * no longer held may not change); retries, pending steps and their state, hand-backs, leases that ended,
 * follow-up jobs, prepare jobs, an account's postponed jobs, and the time the scheduler sleeps until.
 * Each test opens a fresh store.
 */
import { describe, expect, it } from 'vitest';
import {
  deliveriesById,
  MINUTE,
  NOW,
  newDeliveries,
  newPost,
  type OpenStore,
  postWithDeliveries,
  seedWorkspace,
} from './store-fixture.js';

const mine = (leaseUntilMs = NOW + MINUTE) => ({ owner: 'scheduler-a', leaseUntilMs });
const theirs = (leaseUntilMs = NOW + MINUTE) => ({ owner: 'scheduler-b', leaseUntilMs });
const sent = { externalId: 'ext-1', url: 'https://example.social/1' };

export function jobsContract(open: OpenStore): void {
  describe('DeliveryStore and JobStore', () => {
    it('keeps deliveries as written, by post, in id order, each pending one with a send job due', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries, posts, jobs } = ws.store;
      const postId = await posts.insert(newPost(ws, { status: 'publishing' }));
      const written = newDeliveries(ws, postId);
      const skipped = {
        ...written[0]!,
        channelId: 999,
        status: 'skipped' as const,
        reason: 'Needs media',
        content: null,
      };
      await deliveries.insertMany([...written, skipped], NOW);
      await deliveries.insertMany([], NOW);
      const stored = await deliveries.ofPost(postId);
      expect(stored.map(({ id: _id, ...rest }) => rest)).toEqual(
        [...written, skipped].map((d) => ({
          ...d,
          externalId: null,
          url: null,
          attempts: 0,
          retryAtMs: null,
          sentAtMs: null,
          commentStatus: 'none',
          commentDueAtMs: null,
          commentSentAtMs: null,
          commentReason: null,
        })),
      );
      expect(stored.map((d) => d.id)).toEqual([...stored.map((d) => d.id)].sort((a, b) => a - b));
      const none = await posts.insert(newPost(ws));
      const byPost = await deliveries.ofPosts([postId, none]);
      expect(byPost.get(postId)).toEqual(stored);
      expect(byPost.get(none)).toEqual([]);
      expect(await deliveries.get(stored[0]!.id)).toEqual(stored[0]);
      // One delivery per post and channel.
      await expect(deliveries.insertMany([written[0]!], NOW)).rejects.toThrow();
      expect(await deliveries.counts(postId)).toEqual({
        pending: 3,
        sending: 0,
        sent: 0,
        failed: 0,
        skipped: 1,
      });
      // Send jobs for the pending three, none for the skipped one.
      expect(await jobs.hasDue(NOW - 1)).toBe(false);
      expect(await jobs.hasDue(NOW)).toBe(true);
      expect(await jobs.nextWakeAtMs()).toBe(NOW);
      const sends = await Promise.all(stored.map((d) => jobs.ofDelivery(d.id, 'send')));
      expect(sends.map((job) => job?.status)).toEqual(['waiting', 'waiting', 'waiting', undefined]);
      expect(sends[0]).toMatchObject({ kind: 'send', step: 'commit', attempts: 0, state: {}, dueAtMs: NOW });
    });

    it('claims due jobs soonest first under an owner, each once; a claimed send turns its delivery sending', async () => {
      const ws = await seedWorkspace(await open());
      const { jobs } = ws.store;
      const ids = [...(await postWithDeliveries(ws)).ids, ...(await postWithDeliveries(ws)).ids];
      const first = await jobs.claim(4, mine(), NOW);
      expect(first.map((c) => c.delivery?.id)).toEqual(ids.slice(0, 4));
      expect(first.every((c) => c.job.status === 'active' && c.job.attempts === 1)).toBe(true);
      expect(first.every((c) => c.job.owner === 'scheduler-a' && c.job.leaseUntilMs === NOW + MINUTE)).toBe(
        true,
      );
      expect(first.every((c) => c.delivery?.status === 'sending' && c.delivery.attempts === 1)).toBe(true);
      expect((await jobs.claim(10, theirs(), NOW)).map((c) => c.delivery?.id)).toEqual(ids.slice(4));
      expect(await jobs.claim(10, mine(), NOW)).toEqual([]);
      expect(await jobs.hasDue(NOW)).toBe(false);
      expect(await jobs.nextWakeAtMs()).toBe(NOW + MINUTE + 1);
    });

    it('changes an active job only under its owner: done, failed, waiting again with its reason and state', async () => {
      const ws = await seedWorkspace(await open());
      const { jobs, deliveries } = ws.store;
      const { postId, ids } = await postWithDeliveries(ws);
      const claimed = await jobs.claim(3, mine(), NOW);
      const [a, b, c] = claimed.map((x) => x.job.id) as [number, number, number];
      expect(await jobs.finish(a, 'scheduler-b', { status: 'done', reason: null }, NOW)).toBe(false);
      expect(await jobs.finish(a, 'scheduler-a', { status: 'done', reason: null }, NOW + 1)).toBe(true);
      expect(await jobs.finish(a, 'scheduler-a', { status: 'done', reason: null }, NOW + 2)).toBe(false);
      await deliveries.markSent(ids[0], sent, NOW + 1);
      expect(
        await jobs.finish(b, 'scheduler-a', { status: 'failed', reason: 'Refused: \u0000too long' }, NOW),
      ).toBe(true);
      await deliveries.markFailed(ids[1], 'Refused: \u0000too long');
      expect(await jobs.reschedule(c, 'scheduler-b', { dueAtMs: NOW, reason: 'no' })).toBe(false);
      expect(
        await jobs.reschedule(c, 'scheduler-a', { dueAtMs: NOW + 10 * MINUTE, reason: 'Rate limited' }),
      ).toBe(true);
      await deliveries.markWaiting(ids[2], 'pending', 'Rate limited');

      const byId = await deliveriesById(ws, postId);
      expect(byId.get(ids[0])).toMatchObject({
        status: 'sent',
        ...sent,
        sentAtMs: NOW + 1,
        reason: null,
        attempts: 1,
      });
      expect(byId.get(ids[1])).toMatchObject({ status: 'failed' });
      expect(byId.get(ids[1])?.reason).toMatch(/^Refused: /);
      expect(byId.get(ids[2])).toMatchObject({
        status: 'pending',
        reason: 'Rate limited',
        retryAtMs: NOW + 10 * MINUTE,
        attempts: 1,
      });
      // Waiting for its retry: not claimable until its time.
      expect(await jobs.hasDue(NOW + 9 * MINUTE)).toBe(false);
      expect(await jobs.nextWakeAtMs()).toBe(NOW + 10 * MINUTE);
      expect(await jobs.claim(5, theirs(), NOW + 9 * MINUTE)).toEqual([]);
      const [again] = await jobs.claim(5, theirs(NOW + 11 * MINUTE), NOW + 10 * MINUTE);
      expect(again?.delivery).toMatchObject({ id: ids[2], status: 'sending', attempts: 2, retryAtMs: null });

      // A pending step: its state replaces the stored one, its attempt is not counted, the step moves on.
      const step = {
        dueAtMs: NOW + 11 * MINUTE,
        reason: 'Processing',
        step: 'check' as const,
        state: { media: ['m1'] },
      };
      expect(await jobs.reschedule(again!.job.id, 'scheduler-b', { ...step, countAttempt: false })).toBe(
        true,
      );
      await deliveries.markWaiting(ids[2], 'sending', 'Processing');
      expect(await deliveries.get(ids[2])).toMatchObject({ status: 'sending', attempts: 1, retryAtMs: null });
      const [checked] = await jobs.claim(5, mine(NOW + 20 * MINUTE), NOW + 11 * MINUTE);
      expect(checked?.job).toMatchObject({ step: 'check', state: { media: ['m1'] }, attempts: 2 });
      expect(await deliveries.counts(postId)).toEqual({
        pending: 0,
        sending: 1,
        sent: 1,
        failed: 1,
        skipped: 0,
      });
    });

    it('takes a job handed back by its owner as never claimed: waiting, due now, the attempt uncounted', async () => {
      const ws = await seedWorkspace(await open());
      const { jobs } = ws.store;
      await postWithDeliveries(ws);
      const [a, b] = await jobs.claim(2, mine(NOW + 3 * MINUTE), NOW);
      expect(await jobs.handBack(a!.job.id, 'scheduler-b')).toBe(false);
      expect(await jobs.handBack(a!.job.id, 'scheduler-a')).toBe(true);
      expect(await jobs.handBack(a!.job.id, 'scheduler-a')).toBe(false);
      expect(await jobs.finish(a!.job.id, 'scheduler-a', { status: 'done', reason: null }, NOW)).toBe(false);
      expect(await jobs.ofDelivery(a!.delivery!.id, 'send')).toMatchObject({
        status: 'waiting',
        attempts: 0,
        owner: null,
      });
      expect(await jobs.claim(1, theirs(), NOW)).toMatchObject([{ job: { id: a!.job.id, attempts: 1 } }]);
      expect(b!.job.status).toBe('active');
    });

    it('takes over a job whose lease ended, once, unless its owner renewed it; its old owner then changes nothing', async () => {
      const ws = await seedWorkspace(await open());
      const { jobs } = ws.store;
      await postWithDeliveries(ws);
      const [a, b, c] = (await jobs.claim(3, mine(NOW + MINUTE), NOW)).map((x) => x.job.id) as [
        number,
        number,
        number,
      ];
      await jobs.renew([c], mine(NOW + 5 * MINUTE));
      await jobs.renew([b], theirs(NOW + 5 * MINUTE)); // not theirs to renew
      const later = NOW + 2 * MINUTE;
      expect((await jobs.expired(later, 10)).map((job) => job.id)).toEqual([a, b]);
      expect(await jobs.takeOver(c, later, { status: 'waiting' })).toBe(false);
      expect(await jobs.takeOver(a, later, { status: 'waiting', step: 'confirm' })).toBe(true);
      expect(await jobs.takeOver(a, later, { status: 'waiting' })).toBe(false);
      expect(await jobs.takeOver(b, later, { status: 'failed', reason: 'In doubt' })).toBe(true);
      expect(await jobs.finish(a, 'scheduler-a', { status: 'done', reason: null }, later)).toBe(false);
      expect(await jobs.reschedule(b, 'scheduler-a', { dueAtMs: later, reason: 'x' })).toBe(false);
      const [retaken] = await jobs.claim(5, theirs(later + MINUTE), later);
      expect(retaken?.job).toMatchObject({ id: a, step: 'confirm', attempts: 2, owner: 'scheduler-b' });
      expect(await jobs.nextWakeAtMs()).toBe(later + MINUTE + 1);
    });

    it('adds follow-up jobs once each, claimed with the rest, and reads a comment’s progress on its delivery', async () => {
      const ws = await seedWorkspace(await open());
      const { jobs, deliveries } = ws.store;
      const { ids } = await postWithDeliveries(ws);
      const [send] = await jobs.claim(1, mine(), NOW);
      await jobs.finish(send!.job.id, 'scheduler-a', { status: 'done', reason: null }, NOW);
      await deliveries.markSent(ids[0], sent, NOW);
      const channelId = send!.job.channelId;
      const comment = { kind: 'comment' as const, deliveryId: ids[0], channelId, dueAtMs: NOW + 5 * MINUTE };
      const poll = { kind: 'close_poll' as const, deliveryId: ids[0], channelId, dueAtMs: NOW + 60 * MINUTE };
      await jobs.add([comment, poll]);
      await jobs.add([{ ...comment, dueAtMs: NOW }]); // already there: unchanged
      expect(await deliveries.get(ids[0])).toMatchObject({
        commentStatus: 'pending',
        commentDueAtMs: NOW + 5 * MINUTE,
      });
      await jobs.claim(10, theirs(NOW + 100 * MINUTE), NOW); // the other two sends
      const [due] = await jobs.claim(10, mine(NOW + 100 * MINUTE), NOW + 5 * MINUTE);
      expect(due?.job).toMatchObject({ kind: 'comment', attempts: 1 });
      expect(due?.delivery).toMatchObject({ id: ids[0], status: 'sent', commentStatus: 'sending' });
      await jobs.reschedule(due!.job.id, 'scheduler-a', {
        dueAtMs: NOW + 6 * MINUTE,
        reason: 'Attempt 1 failed',
      });
      expect(await deliveries.get(ids[0])).toMatchObject({
        commentStatus: 'pending',
        commentReason: 'Attempt 1 failed',
      });
      const [again] = await jobs.claim(10, mine(NOW + 100 * MINUTE), NOW + 6 * MINUTE);
      await jobs.finish(again!.job.id, 'scheduler-a', { status: 'done', reason: null }, NOW + 6 * MINUTE);
      expect(await deliveries.get(ids[0])).toMatchObject({
        commentStatus: 'sent',
        commentSentAtMs: NOW + 6 * MINUTE,
      });
      const [closing] = await jobs.claim(10, mine(NOW + 100 * MINUTE), NOW + 60 * MINUTE);
      expect(closing?.job.kind).toBe('close_poll');
      await jobs.finish(
        closing!.job.id,
        'scheduler-a',
        { status: 'failed', reason: 'gone' },
        NOW + 60 * MINUTE,
      );
      await deliveries.addNote(ids[0], 'The poll could not be closed');
      expect((await deliveries.get(ids[0]))?.notes).toContain('The poll could not be closed');
    });

    it('postpones an account’s waiting jobs to its reset, and keeps prepare jobs per post and channel', async () => {
      const ws = await seedWorkspace(await open());
      const { jobs } = ws.store;
      const { postId } = await postWithDeliveries(ws);
      const [channel] = ws.channelIds;
      expect(await jobs.postponeChannel(channel, NOW + 15 * MINUTE)).toBe(1);
      const claimed = await jobs.claim(10, mine(), NOW);
      expect(claimed.map((c) => c.job.channelId)).not.toContain(channel);
      expect(await jobs.nextWakeAtMs()).toBe(NOW + MINUTE + 1);
      expect((await jobs.claim(10, mine(), NOW + 15 * MINUTE)).map((c) => c.job.channelId)).toEqual([
        channel,
      ]);
      // The account's limit, for every process: the later of two kept, gone once over.
      await jobs.limitAccount(channel, NOW + 20 * MINUTE);
      await jobs.limitAccount(channel, NOW + 18 * MINUTE);
      expect(await jobs.accountLimits(NOW)).toEqual(new Map([[channel, NOW + 20 * MINUTE]]));
      expect(await jobs.accountLimits(NOW + 20 * MINUTE)).toEqual(new Map());

      const later = await ws.store.posts.insert(
        newPost(ws, { status: 'scheduled', dueAtMs: NOW + HOUR_AHEAD }),
      );
      const prepare = {
        kind: 'prepare' as const,
        postId: later,
        channelId: channel,
        dueAtMs: NOW,
        step: 'prepare' as const,
      };
      await jobs.add([
        { ...prepare, state: { content: 'k1' } },
        { ...prepare, state: { content: 'k2' } },
      ]);
      const prepared = await jobs.preparedFor(later);
      expect([...prepared.keys()]).toEqual([channel]);
      expect(prepared.get(channel)).toMatchObject({
        kind: 'prepare',
        step: 'prepare',
        state: { content: 'k1' },
      });
      expect((await jobs.preparedFor(postId)).size).toBe(0);
      await jobs.dropPrepared(later);
      expect((await jobs.preparedFor(later)).size).toBe(0);
    });
  });
}

const HOUR_AHEAD = 60 * MINUTE;
