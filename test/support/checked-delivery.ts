/**
 * A post taken through the pre-flight and then through a connected channel's connector, as the service
 * and the engine take it: the pre-flight with the capabilities the connector gave at connect time, the
 * delivery planned by planDelivery. Says what the pre-flight told, the text it measured and its length,
 * and what the connector's platform made of it, so that a test can hold the two against each other.
 */
import type { Capabilities } from '../../src/domain/capabilities.js';
import { planDelivery, platformText } from '../../src/domain/platform-rules.js';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import { type MediaFacts, preflightChannel, textLength } from '../../src/domain/preflight.js';
import type { ChannelType } from '../../src/domain/schemas.js';
import type { DeliveryJob, Publisher, StepOutcome } from '../../src/ports.js';
import type { VerifiedConnection } from '../../src/publish/connector.js';

export interface ConnectedChannel {
  type: ChannelType;
  connector: string;
  capabilities: Capabilities;
  publisher: Publisher;
}

export function connectedChannel(
  verified: VerifiedConnection,
  type: ChannelType,
  publisher: Publisher,
): ConnectedChannel {
  return { type, connector: verified.kind, capabilities: verified.capabilities, publisher };
}

export interface CheckedDelivery {
  /** The pre-flight's `fail` messages. */
  fails: string[];
  /** Its `change` messages. */
  changes: string[];
  /** The text the pre-flight measured, and its length as the platform counts. */
  measured: string;
  length: number;
  outcome: StepOutcome;
}

let jobs = 0;

export const post = (extra: Partial<PostPayload>): PostPayload => ({ publishMode: 'IMMEDIATE', ...extra });

/** `media`: the facts of the media ids the post uses (all uploaded, as the pre-flight reads them). */
export async function deliverChecked(
  to: ConnectedChannel,
  payload: PostPayload,
  media: MediaFacts = new Map(),
): Promise<CheckedDelivery> {
  const channel = { id: 5, name: `Northwind on ${to.type}`, type: to.type, status: 'ACTIVE' as const };
  const warnings = preflightChannel(payload, { ...channel, ...to }, media);
  const messages = (outcome: string) =>
    warnings.filter((warning) => warning.outcome === outcome).map((warning) => warning.message);
  const types = new Map([...media].map(([id, facts]) => [id, facts.type]));
  const plan = planDelivery(payload, channel, types);
  if (plan.action !== 'send') throw new Error(`planned to ${plan.action}: ${plan.reason}`);
  const measured = platformText(plan.content, to.capabilities.polls);
  jobs += 1;
  const job: DeliveryJob = {
    deliveryId: jobs,
    postId: jobs,
    brandId: 1,
    channel,
    content: plan.content,
    idempotencyKey: `store-checked:delivery-${jobs}`,
    dueAtMs: Date.UTC(2026, 10, 25, 9) + jobs * 60_000,
    attempt: 1,
    state: {},
  };
  return {
    fails: messages('fail'),
    changes: messages('change'),
    measured,
    length: textLength(measured, to.capabilities),
    outcome: await to.publisher.deliver(job),
  };
}
