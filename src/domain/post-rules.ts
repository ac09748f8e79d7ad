/**
 * The rules of post creation that the schema alone cannot state: they read several fields together,
 * the brand's timezone or the clock. They run on the (normalized) raw input so that their failures
 * are reported together with the schema's; a field of the wrong type is left to the schema.
 */
import type { FieldErrors } from './errors.js';
import { attributeName, message } from './messages.js';
import { resolveLocalTime } from './time.js';
import { isPlainObject } from './validation.js';

export interface PostRuleContext {
  timezone: string;
  nowMs: number;
}

export interface PostRuleResult {
  errors: FieldErrors;
  /** The instant scheduledAt names in the brand's timezone, when it is valid. */
  scheduledAtMs?: number;
}

function add(errors: FieldErrors, field: string, text: string): void {
  const list = errors[field] ?? [];
  errors[field] = list;
  list.push(text);
}

export function checkPostRules(input: unknown, context: PostRuleContext): PostRuleResult {
  const errors: FieldErrors = {};
  if (!isPlainObject(input)) return { errors };
  const result: PostRuleResult = { errors };

  if (input.caption === undefined && input.poll === undefined)
    add(errors, 'caption', message.captionRequired);

  const mode = input.publishMode;
  const scheduledAt = input.scheduledAt;
  if (scheduledAt === undefined) {
    if (mode === 'SCHEDULE') add(errors, 'scheduledAt', message.scheduledAtRequired);
  } else if (typeof scheduledAt === 'string') {
    const resolved = resolveLocalTime(scheduledAt, context.timezone);
    if (resolved.ok) {
      result.scheduledAtMs = resolved.epochMs;
      // QUEUE and IMMEDIATE ignore scheduledAt; everywhere else (a DRAFT's planned time too) it must be future.
      const ignored = mode === 'QUEUE' || mode === 'IMMEDIATE';
      if (!ignored && resolved.epochMs <= context.nowMs)
        add(errors, 'scheduledAt', message.scheduledAtFuture);
    } else if (resolved.reason === 'gap') {
      add(errors, 'scheduledAt', message.scheduledAtGap(context.timezone));
    } else if (resolved.reason === 'range') {
      add(errors, 'scheduledAt', message.scheduledAtRange);
    }
  }

  if (Array.isArray(input.media)) {
    input.media.forEach((element, index) => {
      if (!isPlainObject(element)) return;
      const hasId = element.id !== undefined;
      const hasUrl = element.url !== undefined;
      if (hasId === hasUrl) add(errors, `media.${index}`, message.mediaEitherIdOrUrl(index));
    });
  }

  const poll = input.poll;
  if (isPlainObject(poll) && Number.isInteger(poll.correctOptionIndex)) {
    // The schema's own minimum is left to this rule (messages.ts), so a negative index is worded here too.
    const index = poll.correctOptionIndex as number;
    const last = Array.isArray(poll.options) ? poll.options.length - 1 : -1;
    if (last >= 0 && (index < 0 || index > last)) {
      add(errors, 'poll.correctOptionIndex', message.correctOptionRange(last));
    } else if (last < 0 && index < 0) {
      // No options to count: the bound the schema states.
      add(errors, 'poll.correctOptionIndex', message.minNumber(attributeName('poll.correctOptionIndex'), 0));
    }
  }
  return result;
}
