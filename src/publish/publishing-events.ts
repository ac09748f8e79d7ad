/**
 * The words of the publishing engine's events (`PublishingEvent`): what a brand's users are told as its
 * posts go out. The level says how much it needs them: a post published is info, a channel that did not
 * get it a warning, a post that reached no channel an error.
 */
import type { PostStatus } from '../domain/post-schemas.js';
import type { NewDelivery, PublishingEvent } from '../ports.js';
import type { FailureDecision } from './retry-policy.js';

/** The post an event is about. */
export interface EventPost {
  id: number;
  brandId: number;
}

const SETTLED_LEVELS: Partial<Record<PostStatus, PublishingEvent['level']>> = {
  published: 'info',
  partially_published: 'warning',
  failed: 'error',
};

function event(post: EventPost, level: PublishingEvent['level'], message: string): PublishingEvent {
  return { level, message, brandId: post.brandId, postId: post.id };
}

/** "post 12: partially published" (also the operator's log line). */
export function postSettled(post: EventPost, status: PostStatus): PublishingEvent {
  return event(post, SETTLED_LEVELS[status] ?? 'info', `post ${post.id}: ${status.replace('_', ' ')}`);
}

/** A due post started: how many channels it goes to, and each channel it will not reach and why. */
export function postStarted(post: EventPost, deliveries: readonly NewDelivery[]): PublishingEvent[] {
  const sending = deliveries.filter((delivery) => delivery.status === 'pending').length;
  const events = [
    event(post, 'info', `post ${post.id}: publishing to ${sending} of ${deliveries.length} channels`),
  ];
  for (const delivery of deliveries) {
    if (delivery.status !== 'failed' && delivery.status !== 'skipped') continue;
    events.push(
      event(
        post,
        delivery.status === 'failed' ? 'warning' : 'info',
        `post ${post.id} to ${delivery.channelName} ${delivery.status}: ${delivery.reason}`,
      ),
    );
  }
  return events;
}

/** "delivery 40 of post 12 to Northwind Coffee on X/Twitter failed: reason" (also the operator's log line). */
export function deliveryFailed(
  post: EventPost,
  delivery: { id: number; channelName: string },
  reason: string,
): PublishingEvent {
  return event(
    post,
    'warning',
    `delivery ${delivery.id} of post ${post.id} to ${delivery.channelName} failed: ${reason}`,
  );
}

export function commentPosted(post: EventPost, channelName: string): PublishingEvent {
  return event(post, 'info', `post ${post.id}: auto-comment posted on ${channelName}`);
}

export function commentFailed(post: EventPost, channelName: string, reason: string): PublishingEvent {
  return event(post, 'warning', `post ${post.id}: auto-comment on ${channelName} failed: ${reason}`);
}

/** "post 12: delivery to Acme on X: the webhook answered 503 Service Unavailable on attempt 1 of 5; retrying" */
export function sendRetrying(post: EventPost, what: string, detail: string): PublishingEvent {
  return event(post, 'warning', `post ${post.id}: ${what}: ${detail}; retrying`);
}

/** Bad or revoked credentials: the channel was turned INACTIVE until it is connected again. */
export function channelNeedsReconnect(post: EventPost, channelName: string, reason: string): PublishingEvent {
  return event(post, 'error', `channel ${channelName} is now INACTIVE: ${reason}`);
}

/** What one recorded send tells: a retry, or a failure (and a channel to reconnect); its post settled. */
export function sendRecorded(
  post: EventPost,
  delivery: { id: number; channelName: string },
  decision: FailureDecision | undefined,
  settled: PostStatus | undefined,
): PublishingEvent[] {
  const events: PublishingEvent[] = [];
  if (decision?.action === 'retry') {
    events.push(sendRetrying(post, `delivery to ${delivery.channelName}`, decision.reason));
  } else if (decision?.action === 'fail') {
    events.push(deliveryFailed(post, delivery, decision.reason));
    if (decision.reconnect) events.push(channelNeedsReconnect(post, delivery.channelName, decision.reason));
  }
  if (settled) events.push(postSettled(post, settled));
  return events;
}
