/**
 * The DeliveryStore port's semantics, for any adapter: deliveries as written, claims under an owner's
 * lease (and what a claim no longer held may not change), retries, leases that ended, auto-comments,
 * poll closings, and the times the scheduler sleeps until. Each test opens a fresh store.
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
const sent = {
  externalId: 'ext-1',
  url: 'https://example.social/1',
  commentDueAtMs: null,
  pollCloseAtMs: null,
};

export function deliveriesContract(open: OpenStore): void {
  describe('DeliveryStore', () => {
    it('keeps deliveries as written, by post, in id order', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries, posts } = ws.store;
      const postId = await posts.insert(newPost(ws, { status: 'publishing' }));
      const written = newDeliveries(ws, postId);
      await deliveries.insertMany([
        ...written,
        { ...written[0]!, channelId: 999, status: 'skipped', reason: 'Needs media', content: null },
      ]);
      await deliveries.insertMany([]);
      const stored = await deliveries.ofPost(postId);
      expect(stored.map(({ id: _id, ...rest }) => rest)).toEqual(
        [
          ...written,
          { ...written[0]!, channelId: 999, status: 'skipped', reason: 'Needs media', content: null },
        ].map((d) => ({
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
          commentAttempts: 0,
          pollCloseAtMs: null,
          pollCloseStatus: 'none',
        })),
      );
      expect(stored.map((d) => d.id)).toEqual([...stored.map((d) => d.id)].sort((a, b) => a - b));
      const none = await posts.insert(newPost(ws));
      const byPost = await deliveries.ofPosts([postId, none]);
      expect(byPost.get(postId)).toEqual(stored);
      expect(byPost.get(none)).toEqual([]);
      expect((await deliveries.ofPosts([])).size).toBe(0);
      // One delivery per post and channel.
      await expect(deliveries.insertMany([written[0]!])).rejects.toThrow();
      expect(await deliveries.counts(postId)).toEqual({
        pending: 3,
        sending: 0,
        sent: 0,
        failed: 0,
        skipped: 1,
      });
    });

    it('claims pending deliveries in id order under an owner, attempt by attempt, each once', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const ids = [...(await postWithDeliveries(ws)).ids, ...(await postWithDeliveries(ws)).ids];
      expect(await deliveries.hasPending(NOW)).toBe(true);
      const first = await deliveries.claimPending(4, mine(), NOW);
      expect(first.map((d) => d.id)).toEqual(ids.slice(0, 4));
      expect(first.every((d) => d.status === 'sending' && d.attempts === 1)).toBe(true);
      expect((await deliveries.claimPending(10, theirs(), NOW)).map((d) => d.id)).toEqual(ids.slice(4));
      expect(await deliveries.claimPending(10, mine(), NOW)).toEqual([]);
      expect(await deliveries.hasPending(NOW)).toBe(false);
    });

    it('changes a claimed delivery only under its owner: sent, failed, or back for a retry', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const {
        postId,
        ids: [a, b, c],
      } = await postWithDeliveries(ws);
      await deliveries.claimPending(3, mine(), NOW);
      expect(await deliveries.markSent(a, 'scheduler-b', sent, NOW)).toBe(false);
      expect(
        await deliveries.markSent(
          a,
          'scheduler-a',
          { ...sent, commentDueAtMs: NOW + 5 * MINUTE, pollCloseAtMs: NOW + 60 * MINUTE },
          NOW + 1,
        ),
      ).toBe(true);
      expect(await deliveries.markSent(a, 'scheduler-a', sent, NOW + 2)).toBe(false);
      expect(await deliveries.markFailed(b, 'scheduler-b', 'no')).toBe(false);
      expect(await deliveries.markFailed(b, 'scheduler-a', 'Refused: too long')).toBe(true);
      expect(await deliveries.markFailed(b, 'scheduler-a', 'again')).toBe(false);
      expect(await deliveries.markRetry(c, 'scheduler-b', 'no', NOW)).toBe(false);
      expect(await deliveries.markRetry(c, 'scheduler-a', 'Rate limited', NOW + 10 * MINUTE)).toBe(true);

      const byId = await deliveriesById(ws, postId);
      expect(byId.get(a)).toMatchObject({
        status: 'sent',
        externalId: 'ext-1',
        url: 'https://example.social/1',
        sentAtMs: NOW + 1,
        reason: null,
        commentStatus: 'pending',
        commentDueAtMs: NOW + 5 * MINUTE,
        pollCloseStatus: 'pending',
        pollCloseAtMs: NOW + 60 * MINUTE,
      });
      expect(byId.get(b)).toMatchObject({ status: 'failed', reason: 'Refused: too long' });
      expect(byId.get(c)).toMatchObject({
        status: 'pending',
        reason: 'Rate limited',
        retryAtMs: NOW + 10 * MINUTE,
        attempts: 1,
      });

      // Waiting for its retry: not claimable, not pending "now", until its time.
      expect(await deliveries.hasPending(NOW + 9 * MINUTE)).toBe(false);
      expect(await deliveries.nextRetryAtMs()).toBe(NOW + 10 * MINUTE);
      expect(await deliveries.claimPending(5, theirs(), NOW + 9 * MINUTE)).toEqual([]);
      expect(await deliveries.hasPending(NOW + 10 * MINUTE)).toBe(true);
      const [again] = await deliveries.claimPending(5, theirs(NOW + 11 * MINUTE), NOW + 10 * MINUTE);
      expect(again).toMatchObject({ id: c, status: 'sending', attempts: 2, retryAtMs: null });
      expect(await deliveries.nextRetryAtMs()).toBeUndefined();
      expect(await deliveries.counts(postId)).toEqual({
        pending: 0,
        sending: 1,
        sent: 1,
        failed: 1,
        skipped: 0,
      });
    });

    // A platform's answer may hold U+0000, which PostgreSQL text cannot hold (see posts.contract.ts).
    it('records a failure whose reason holds U+0000', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const {
        postId,
        ids: [a],
      } = await postWithDeliveries(ws);
      await deliveries.claimPending(3, mine(), NOW);
      expect(await deliveries.markFailed(a, 'scheduler-a', 'Refused: \u0000bad')).toBe(true);
      const failed = (await deliveriesById(ws, postId)).get(a);
      expect(failed?.status).toBe('failed');
      expect(failed?.reason).toMatch(/^Refused: /);
    });

    it('takes a claim handed back by its owner as never made: pending, no owner, the attempt uncounted', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const {
        postId,
        ids: [a, b],
      } = await postWithDeliveries(ws);
      await deliveries.claimPending(2, mine(NOW + 3 * MINUTE), NOW);
      expect(await deliveries.handBack(a, 'scheduler-b')).toBe(false);
      expect(await deliveries.handBack(a, 'scheduler-a')).toBe(true);
      expect(await deliveries.handBack(a, 'scheduler-a')).toBe(false);
      expect(await deliveries.markSent(a, 'scheduler-a', sent, NOW)).toBe(false);
      expect((await deliveriesById(ws, postId)).get(a)).toMatchObject({ status: 'pending', attempts: 0 });
      // Claimable at once by anyone, and no lease of it left to wait for.
      expect(await deliveries.nextLeaseEndMs()).toBe(NOW + 3 * MINUTE);
      expect(await deliveries.claimPending(1, theirs(), NOW)).toMatchObject([{ id: a, attempts: 1 }]);

      // An auto-comment the same way; the delivery it follows stays sent.
      await deliveries.markSent(b, 'scheduler-a', { ...sent, commentDueAtMs: NOW }, NOW);
      expect(await deliveries.claimDueComments(1, mine(), NOW)).toMatchObject([{ id: b }]);
      expect(await deliveries.handBackComment(b, 'scheduler-b')).toBe(false);
      expect(await deliveries.handBackComment(b, 'scheduler-a')).toBe(true);
      expect(await deliveries.handBackComment(b, 'scheduler-a')).toBe(false);
      expect((await deliveriesById(ws, postId)).get(b)).toMatchObject({
        status: 'sent',
        commentStatus: 'pending',
        attempts: 1,
      });
      expect(await deliveries.claimDueComments(1, theirs(), NOW)).toMatchObject([{ id: b }]);
    });

    it('takes back a claim whose lease ended, once, unless its owner renewed it meanwhile', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const {
        postId,
        ids: [a, b, c],
      } = await postWithDeliveries(ws);
      await deliveries.claimPending(1, mine(NOW + 3 * MINUTE), NOW);
      await deliveries.claimPending(1, theirs(NOW + MINUTE), NOW);
      await deliveries.claimPending(1, theirs(NOW + 2 * MINUTE), NOW);
      expect(await deliveries.nextLeaseEndMs()).toBe(NOW + MINUTE);
      expect(await deliveries.expiredClaims(NOW + MINUTE, 10)).toEqual([]);
      expect((await deliveries.expiredClaims(NOW + 5 * MINUTE, 10)).map((d) => d.id)).toEqual([b, c, a]);
      expect((await deliveries.expiredClaims(NOW + 5 * MINUTE, 1)).map((d) => d.id)).toEqual([b]);

      // Renewed by its owner (only its own claims): no longer expired.
      await deliveries.renew([a, b], mine(NOW + 10 * MINUTE));
      expect((await deliveries.expiredClaims(NOW + 5 * MINUTE, 10)).map((d) => d.id)).toEqual([b, c]);
      expect(await deliveries.releaseExpired(a, NOW + 5 * MINUTE)).toBe(false);
      expect(await deliveries.nextLeaseEndMs()).toBe(NOW + MINUTE);

      expect(await deliveries.releaseExpired(b, NOW + 5 * MINUTE)).toBe(true);
      expect(await deliveries.releaseExpired(b, NOW + 5 * MINUTE)).toBe(false);
      expect(await deliveries.failExpired(c, 'In doubt', NOW + 5 * MINUTE)).toBe(true);
      expect(await deliveries.failExpired(c, 'In doubt', NOW + 5 * MINUTE)).toBe(false);
      // The old owner's outcome is not recorded.
      expect(await deliveries.markSent(b, 'scheduler-b', sent, NOW + 6 * MINUTE)).toBe(false);
      const after = await deliveriesById(ws, postId);
      expect(after.get(b)).toMatchObject({ status: 'pending', attempts: 1 });
      expect(after.get(c)).toMatchObject({ status: 'failed', reason: 'In doubt' });
      expect(await deliveries.nextLeaseEndMs()).toBe(NOW + 10 * MINUTE);
      // Claimed again, it counts a second attempt.
      expect(await deliveries.claimPending(5, theirs(), NOW + 6 * MINUTE)).toMatchObject([
        { id: b, attempts: 2 },
      ]);
    });

    it('claims due auto-comments under an owner, soonest first, and changes them only under it', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const {
        postId,
        ids: [a, b, c],
      } = await postWithDeliveries(ws);
      await deliveries.claimPending(3, mine(), NOW);
      await deliveries.markSent(a, 'scheduler-a', { ...sent, commentDueAtMs: NOW + 3 * MINUTE }, NOW);
      await deliveries.markSent(b, 'scheduler-a', { ...sent, commentDueAtMs: NOW + 2 * MINUTE }, NOW);
      await deliveries.markSent(c, 'scheduler-a', sent, NOW);
      expect(await deliveries.nextCommentDueAtMs()).toBe(NOW + 2 * MINUTE);
      expect(await deliveries.claimDueComments(5, theirs(), NOW + MINUTE)).toEqual([]);
      const due = await deliveries.claimDueComments(5, theirs(NOW + 10 * MINUTE), NOW + 3 * MINUTE);
      expect(due.map((d) => [d.id, d.commentStatus])).toEqual([
        [b, 'sending'],
        [a, 'sending'],
      ]);
      expect(await deliveries.nextCommentDueAtMs()).toBeUndefined();
      expect(await deliveries.nextLeaseEndMs()).toBe(NOW + 10 * MINUTE);

      expect(await deliveries.markComment(b, 'scheduler-a', 'sent', NOW, null)).toBe(false);
      expect(await deliveries.markComment(b, 'scheduler-b', 'sent', NOW + 4 * MINUTE, null)).toBe(true);
      expect(await deliveries.markComment(b, 'scheduler-b', 'failed', NOW, 'x')).toBe(false);
      expect(await deliveries.retryComment(a, 'scheduler-a', 'no', NOW)).toBe(false);
      expect(await deliveries.retryComment(a, 'scheduler-b', 'Rate limited', NOW + 20 * MINUTE)).toBe(true);
      expect(await deliveries.nextCommentDueAtMs()).toBe(NOW + 20 * MINUTE);
      const [again] = await deliveries.claimDueComments(5, mine(NOW + 30 * MINUTE), NOW + 20 * MINUTE);
      expect(again).toMatchObject({
        id: a,
        commentStatus: 'sending',
        commentReason: 'Rate limited',
        commentDueAtMs: NOW + 20 * MINUTE,
      });
      expect(await deliveries.markComment(a, 'scheduler-a', 'failed', NOW + 21 * MINUTE, 'Refused')).toBe(
        true,
      );

      const after = await deliveriesById(ws, postId);
      // Each claim of a comment is one of its attempts, apart from its delivery's.
      expect(after.get(b)).toMatchObject({
        commentStatus: 'sent',
        commentSentAtMs: NOW + 4 * MINUTE,
        commentReason: null,
        commentAttempts: 1,
        attempts: 1,
      });
      expect(after.get(a)).toMatchObject({
        commentStatus: 'failed',
        commentSentAtMs: null,
        commentReason: 'Refused',
        commentAttempts: 2,
        attempts: 1,
      });
      expect(after.get(c)).toMatchObject({ commentStatus: 'none', commentDueAtMs: null });
    });

    it('takes back an auto-comment whose lease ended, once, put back or failed', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const {
        postId,
        ids: [a, b],
      } = await postWithDeliveries(ws);
      await deliveries.claimPending(2, mine(), NOW);
      await deliveries.markSent(a, 'scheduler-a', { ...sent, commentDueAtMs: NOW }, NOW);
      await deliveries.markSent(b, 'scheduler-a', { ...sent, commentDueAtMs: NOW }, NOW);
      await deliveries.claimDueComments(2, theirs(NOW + MINUTE), NOW);
      expect(await deliveries.expiredCommentClaims(NOW + MINUTE, 10)).toEqual([]);
      expect((await deliveries.expiredCommentClaims(NOW + 2 * MINUTE, 10)).map((d) => d.id)).toEqual([a, b]);
      // A delivery's own claims are not the comments': nothing to take back there.
      expect(await deliveries.expiredClaims(NOW + 2 * MINUTE, 10)).toEqual([]);
      expect(await deliveries.releaseExpiredComment(a, NOW + 2 * MINUTE)).toBe(true);
      expect(await deliveries.releaseExpiredComment(a, NOW + 2 * MINUTE)).toBe(false);
      expect(await deliveries.failExpiredComment(b, 'Comment in doubt', NOW + 2 * MINUTE)).toBe(true);
      expect(await deliveries.failExpiredComment(b, 'Comment in doubt', NOW + 2 * MINUTE)).toBe(false);
      expect(await deliveries.markComment(a, 'scheduler-b', 'sent', NOW, null)).toBe(false);
      const after = await deliveriesById(ws, postId);
      expect(after.get(a)).toMatchObject({ status: 'sent', commentStatus: 'pending' });
      expect(after.get(b)).toMatchObject({
        status: 'sent',
        commentStatus: 'failed',
        commentReason: 'Comment in doubt',
      });
      expect(await deliveries.nextLeaseEndMs()).toBeUndefined();
    });

    it('closes due polls under a lease, takes over a closing whose lease ended, and notes why one failed', async () => {
      const ws = await seedWorkspace(await open());
      const { deliveries } = ws.store;
      const {
        postId,
        ids: [a, b, c],
      } = await postWithDeliveries(ws);
      await deliveries.claimPending(3, mine(), NOW);
      await deliveries.markSent(a, 'scheduler-a', { ...sent, pollCloseAtMs: NOW + 2 * MINUTE }, NOW);
      await deliveries.markSent(b, 'scheduler-a', { ...sent, pollCloseAtMs: NOW + MINUTE }, NOW);
      await deliveries.markSent(c, 'scheduler-a', sent, NOW);
      expect(await deliveries.nextPollCloseAtMs()).toBe(NOW + MINUTE);
      expect(
        (await deliveries.claimDuePollCloses(5, NOW + 5 * MINUTE, NOW + MINUTE)).map((d) => d.id),
      ).toEqual([b]);
      // Being closed under a lease: next due once that lease ends; not claimed while it lasts.
      expect(await deliveries.nextPollCloseAtMs()).toBe(NOW + 2 * MINUTE);
      const taken = await deliveries.claimDuePollCloses(5, NOW + 6 * MINUTE, NOW + 2 * MINUTE);
      expect(taken.map((d) => [d.id, d.pollCloseStatus])).toEqual([[a, 'sending']]);
      expect(await deliveries.nextPollCloseAtMs()).toBe(NOW + 5 * MINUTE + 1);
      expect(
        (await deliveries.claimDuePollCloses(5, NOW + 20 * MINUTE, NOW + 5 * MINUTE + 1)).map((d) => d.id),
      ).toEqual([b]);

      expect(await deliveries.markPollClosed(b, 'closed', null)).toBe(true);
      expect(await deliveries.markPollClosed(b, 'closed', null)).toBe(false);
      expect(await deliveries.markPollClosed(a, 'failed', 'Poll not found')).toBe(true);
      expect(await deliveries.markPollClosed(c, 'closed', null)).toBe(false);
      expect(await deliveries.nextPollCloseAtMs()).toBeUndefined();
      const after = await deliveriesById(ws, postId);
      expect(after.get(a)).toMatchObject({ pollCloseStatus: 'failed', notes: ['note 0', 'Poll not found'] });
      expect(after.get(b)).toMatchObject({ pollCloseStatus: 'closed', notes: ['note 1'] });
    });
  });
}
