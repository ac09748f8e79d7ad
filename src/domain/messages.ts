/**
 * Validation messages in Laravel's English phrasing (product.md, "Validation (422) messages").
 * The error key is the raw dotted path; the attribute in the sentence is that path with camelCase
 * and snake_case split into lower-case words.
 */
import type { z } from 'zod';
import type { FieldErrors } from './errors.js';

/** Rules our own checks raise as zod `custom` issues; `params` carries the rule and its limit. */
export type CustomRule =
  | { rule: 'required' }
  | { rule: 'min_chars'; limit: number }
  | { rule: 'max_chars'; limit: number }
  | { rule: 'date_format'; format: string }
  | { rule: 'timezone' }
  | { rule: 'message'; message: (attribute: string) => string };

export function fieldKey(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/**
 * `poll.correctOptionIndex` → `poll.correct option index`; `per_page` → `per page`. Only an underscore
 * between two letters or digits separates words: `__proto__` stays readable as the name it is.
 */
export function attributeName(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])/g, ' ')
    .toLowerCase();
}

export const message = {
  required: (a: string) => `The ${a} field is required.`,
  notAllowed: (a: string) => `The ${a} field is not allowed.`,
  string: (a: string) => `The ${a} must be a string.`,
  integer: (a: string) => `The ${a} must be an integer.`,
  boolean: (a: string) => `The ${a} field must be true or false.`,
  array: (a: string) => `The ${a} must be an array.`,
  /** The whole body (or the arguments) is not a JSON object: `array` would read as asking for a list. */
  bodyObject: 'The body must be an object.',
  invalid: (a: string) => `The ${a} is invalid.`,
  selectedInvalid: (a: string) => `The selected ${a} is invalid.`,
  maxChars: (a: string, n: number) => `The ${a} may not be greater than ${n} characters.`,
  minChars: (a: string, n: number) => `The ${a} must be at least ${n} characters.`,
  minItems: (a: string, n: number) => `The ${a} must have at least ${n} items.`,
  maxItems: (a: string, n: number) => `The ${a} may not have more than ${n} items.`,
  minNumber: (a: string, n: number) => `The ${a} must be at least ${n}.`,
  maxNumber: (a: string, n: number) => `The ${a} may not be greater than ${n}.`,
  format: (a: string) => `The ${a} format is invalid.`,
  dateFormat: (a: string, format: string) => `The ${a} does not match the format ${format}.`,
  timezone: (a: string) => `The ${a} must be a valid IANA timezone.`,
  captionRequired: 'The caption field is required when poll is not present.',
  scheduledAtRequired: 'The scheduled at field is required when publish mode is SCHEDULE.',
  scheduledAtFuture: 'The scheduled at must be a future date.',
  scheduledAtRange: 'The scheduled at must be before 10000-01-01 00:00:00 UTC.',
  scheduledAtGap: (timezone: string) => `The scheduled at does not exist in the ${timezone} timezone.`,
  mediaEitherIdOrUrl: (i: number) => `The media.${i} must have either an id or a url, not both.`,
  mediaIdInvalid: (i: number) => `The selected media.${i}.id is invalid.`,
  correctOptionRange: (max: number) => `The poll.correct option index must be between 0 and ${max}.`,
  collectionEmpty:
    'The collection has no channels: only a DRAFT can be created in it. Add channels to the collection or use publishMode DRAFT.',
  mediaRequired: 'The media field is required.',
  mediaTooLarge: 'The media file may not be greater than 100 megabytes.',
  mediaType: 'The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf.',
} as const;

function sizeMessage(
  origin: string,
  attribute: string,
  limit: number,
  bound: 'min' | 'max',
): string | undefined {
  if (origin === 'string')
    return bound === 'min' ? message.minChars(attribute, limit) : message.maxChars(attribute, limit);
  if (origin === 'array' || origin === 'set') {
    return bound === 'min' ? message.minItems(attribute, limit) : message.maxItems(attribute, limit);
  }
  if (origin === 'number' || origin === 'int' || origin === 'bigint') {
    return bound === 'min' ? message.minNumber(attribute, limit) : message.maxNumber(attribute, limit);
  }
  return undefined;
}

function typeMessage(expected: string, attribute: string): string {
  switch (expected) {
    case 'string':
      return message.string(attribute);
    case 'number':
    case 'int':
    case 'bigint':
      // Every number of the interface is an integer (ids, pages, delays, indexes).
      return message.integer(attribute);
    case 'boolean':
      return message.boolean(attribute);
    case 'object':
    case 'array':
    case 'record':
    case 'tuple':
      return message.array(attribute);
    default:
      return message.invalid(attribute);
  }
}

function issueMessages(issue: z.core.$ZodIssue): Array<[string, string]> {
  const rawKey = fieldKey(issue.path);
  // A body that is not an object at all has no field to name.
  const key = rawKey || 'body';
  const attribute = attributeName(key);
  const absent = !('input' in issue) || issue.input === undefined;
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((name) => {
        const child = rawKey ? `${rawKey}.${name}` : name;
        return [child, message.notAllowed(attributeName(child))];
      });
    case 'invalid_type':
      if (absent) return [[key, message.required(attribute)]];
      if (!rawKey && issue.expected === 'object') return [[key, message.bodyObject]];
      return [[key, typeMessage(issue.expected, attribute)]];
    case 'invalid_value':
      return [[key, absent ? message.required(attribute) : message.selectedInvalid(attribute)]];
    case 'too_big':
      return [
        [
          key,
          sizeMessage(issue.origin, attribute, Number(issue.maximum), 'max') ?? message.invalid(attribute),
        ],
      ];
    case 'too_small':
      // A correct option index below 0 is out of range like one past the last option: post-rules.ts
      // words both with the range, which needs the options this issue does not carry.
      if (issue.origin === 'number' && issue.path.at(-1) === 'correctOptionIndex') return [];
      return [
        [
          key,
          sizeMessage(issue.origin, attribute, Number(issue.minimum), 'min') ?? message.invalid(attribute),
        ],
      ];
    case 'invalid_format':
      return [[key, message.format(attribute)]];
    case 'custom':
      return [[key, customMessage(issue.params as CustomRule | undefined, attribute)]];
    default:
      return [[key, message.invalid(attribute)]];
  }
}

function customMessage(rule: CustomRule | undefined, attribute: string): string {
  switch (rule?.rule) {
    case 'required':
      return message.required(attribute);
    case 'min_chars':
      return message.minChars(attribute, rule.limit);
    case 'max_chars':
      return message.maxChars(attribute, rule.limit);
    case 'date_format':
      return message.dateFormat(attribute, rule.format);
    case 'timezone':
      return message.timezone(attribute);
    case 'message':
      return rule.message(attribute);
    default:
      return message.invalid(attribute);
  }
}

/**
 * zod's `int()` bounds a number to the safe integers itself: past both that and the field's own limit,
 * a value would be told two limits. Only the field's own (the tighter one) is said.
 */
function impliedBySafeInteger(issue: z.core.$ZodIssue, issues: readonly z.core.$ZodIssue[]): boolean {
  if (issue.code !== 'too_big' && issue.code !== 'too_small') return false;
  const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
  if (Math.abs(bound) !== Number.MAX_SAFE_INTEGER) return false;
  const key = fieldKey(issue.path);
  return issues.some((other) => other !== issue && other.code === issue.code && fieldKey(other.path) === key);
}

/** Turns every zod issue into the field errors of the interface, all of them, keyed by dotted path. */
export function fieldErrorsFromIssues(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  // A Map, not an object: a field may be named `__proto__`.
  const errors = new Map<string, string[]>();
  for (const issue of issues.filter((issue) => !impliedBySafeInteger(issue, issues))) {
    for (const [key, text] of issueMessages(issue)) {
      const list = errors.get(key) ?? [];
      errors.set(key, list);
      if (!list.includes(text)) list.push(text);
    }
  }
  return Object.fromEntries(errors);
}
