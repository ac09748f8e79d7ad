/**
 * The text of a failed tool call: every error of the call, one line each, with what fixes it appended
 * (the allowed values, the limit and the length given, the brand's current local time, the times either
 * side of a DST gap, the field meant, the call that lists the ids), so that an assistant can correct
 * its call without guessing. Only the text: the structured content stays the spec's error body.
 *
 * It reads nothing but what remote mode has too: the error's messages (rebuilt from the REST body
 * there), the tool's input schema, the arguments and the service interface. A hint that cannot be
 * worked out is left off; explaining never fails the result.
 */
import { NotFoundError, type ServiceError, ValidationError } from '../domain/errors.js';
import { attributeName, message } from '../domain/messages.js';
import { characterCount } from '../domain/schemas.js';
import {
  describeLocalTime,
  dstGapAround,
  formatLocalTime,
  parseWallClock,
  SCHEDULED_AT_FORMAT,
} from '../domain/time.js';
import { isPlainObject } from '../domain/validation.js';
import type { PublishingService } from '../service/publishing-service.js';
import {
  allowedValues,
  expectedValue,
  fullInputSchemaOf,
  type JsonSchema,
  rangeOf,
  schemaAt,
  valueAt,
} from './input-paths.js';
import type { ToolDefinition } from './tool.js';

/** The call that failed: which tool, with which arguments, on which service. */
export interface FailedCall {
  tool: ToolDefinition;
  args: Record<string, unknown>;
  service: PublishingService;
}

/** The list call that shows the ids a field takes, by the field's last path segment. */
const ID_SOURCES: Record<string, string> = {
  brandId: 'list_brands',
  collectionId: 'list_collections with the brandId',
  postId: 'list_posts with the brandId',
  channelId: 'list_channels with the brandId',
};

const NOT_FOUND_HINTS: Record<string, string> = {
  brand: 'Call list_brands to see the brand ids you can use.',
  collection: 'Call list_collections with the brandId to see its collections and their channels.',
  post: 'Call list_posts with the brandId to see its posts and their ids.',
  channel: "Call list_channels with the brandId to see the brand's channel ids.",
};

// ------------------------------------------------------------------------------ message templates

const SENTINEL = 987_654_321;

/** The number a numbered message template was filled with, when `text` is that template. */
function numberIn(text: string, template: (n: number) => string): number | undefined {
  const [head = '', tail = ''] = template(SENTINEL).split(String(SENTINEL));
  if (!text.startsWith(head) || !text.endsWith(tail)) return undefined;
  // A text shorter than head and tail leaves an empty middle, which is no number.
  const middle = text.slice(head.length, text.length - tail.length);
  return /^-?\d+$/.test(middle) ? Number(middle) : undefined;
}

/**
 * The text a message template was filled with (a timezone), when `text` is that template; empty or
 * undefined when it is not.
 */
function textIn(text: string, template: (value: string) => string): string | undefined {
  const marker = '\u0000';
  const [head = '', tail = ''] = template(marker).split(marker);
  if (!text.startsWith(head) || !text.endsWith(tail)) return undefined;
  // Empty when nothing was filled in, or when head and tail overlap.
  return text.slice(head.length, text.length - tail.length);
}

// ------------------------------------------------------------------------------ the brand's time

interface BrandTime {
  timezone: string;
  nowMs: number;
}

/**
 * The brand's timezone and current time, asked of the service once per failed call (get_queue: also in
 * remote mode, and on the clock of the server that judged the time).
 */
function brandTimeOf(call: FailedCall): () => Promise<BrandTime | undefined> {
  let pending: Promise<BrandTime | undefined> | undefined;
  const ask = async (): Promise<BrandTime | undefined> => {
    const brandId = call.args.brandId;
    if (typeof brandId !== 'number' || !Number.isSafeInteger(brandId) || brandId < 1) return undefined;
    try {
      const queue = await call.service.getQueue({ brandId, count: 1 });
      const nowMs = Date.parse(queue.now);
      return Number.isFinite(nowMs) ? { timezone: queue.timezone, nowMs } : undefined;
    } catch {
      return undefined;
    }
  };
  return () => {
    pending ??= ask();
    return pending;
  };
}

const nowIn = (time: BrandTime) => formatLocalTime(time.nowMs, time.timezone);

// ------------------------------------------------------------------------------ hints per message

interface FieldFailure {
  call: FailedCall;
  field: string;
  segments: string[];
  attribute: string;
  text: string;
  /** The schema of the field, when the tool's input has one at that path. */
  node: JsonSchema | undefined;
  value: unknown;
  brandTime(): Promise<BrandTime | undefined>;
}

function idSource(f: FieldFailure): string | undefined {
  const last = f.segments.at(-1) ?? '';
  return Object.hasOwn(ID_SOURCES, last) ? ID_SOURCES[last] : undefined;
}

/** Case-insensitive edit distance (optimal string alignment: a swap of two letters counts one). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known names closest to `name`, when any is close enough to be a typo of it. */
function closestNames(name: string, known: readonly string[]): string[] {
  const plain = (text: string) => text.toLowerCase().replace(/[_-]/g, '');
  const given = plain(name);
  const allowed = given.length <= 4 ? 1 : given.length <= 8 ? 2 : 3;
  const scored = known.map((candidate) => {
    const other = plain(candidate);
    const prefix =
      Math.min(given.length, other.length) >= 4 && (other.startsWith(given) || given.startsWith(other));
    return { candidate, distance: prefix ? 0.5 : editDistance(given, other) };
  });
  const best = Math.min(...scored.map((entry) => entry.distance));
  return best <= allowed
    ? scored.filter((entry) => entry.distance === best).map((entry) => entry.candidate)
    : [];
}

function unknownFieldHint(f: FieldFailure): string {
  const parentSegments = f.segments.slice(0, -1);
  const parent = parentSegments.join('.');
  const node = schemaAt(fullInputSchemaOf(f.call.tool), parentSegments);
  const known = isPlainObject(node?.properties) ? Object.keys(node.properties) : [];
  if (known.length === 0)
    return parent ? `${parent} takes no fields.` : `${f.call.tool.name} takes no arguments.`;
  const close = closestNames(f.segments.at(-1) ?? '', known).map((name) =>
    parent ? `${parent}.${name}` : name,
  );
  if (close.length > 0) return `Did you mean ${close.join(' or ')}?`;
  return `${parent || f.call.tool.name} takes ${known.join(', ')}.`;
}

function selectedInvalidHint(f: FieldFailure): string | undefined {
  const values = allowedValues(f.node);
  if (values) {
    const meant = values.find((value) => value.toLowerCase() === String(f.value).toLowerCase());
    return `Use one of: ${values.join(', ')}.${meant ? ` Mind the case: ${meant}.` : ''}`;
  }
  if (/^media\.\d+\.id$/.test(f.field))
    return 'Upload the file to this brand with upload_media first and pass the id it returns, or pass a url instead.';
  return undefined;
}

function requiredHint(f: FieldFailure): string | undefined {
  const source = idSource(f);
  if (source) return `Pass ${f.field}, an id from ${source}.`;
  const expected = expectedValue(f.node);
  return expected ? `Pass ${f.field}: ${expected}.` : undefined;
}

function typeHint(f: FieldFailure): string | undefined {
  const source = idSource(f);
  if (source) return `Pass an integer id from ${source}.`;
  const expected = expectedValue(f.node);
  return expected ? `Pass ${expected}.` : undefined;
}

function sizeHint(f: FieldFailure): string | undefined {
  const { attribute: a, text, value } = f;
  const chars = typeof value === 'string' ? characterCount(value) : undefined;
  const items = Array.isArray(value) ? value.length : undefined;
  const maxChars = numberIn(text, (n) => message.maxChars(a, n));
  if (maxChars !== undefined && chars !== undefined)
    return `It has ${chars} characters: shorten it by ${chars - maxChars}.`;
  const minChars = numberIn(text, (n) => message.minChars(a, n));
  if (minChars !== undefined && chars !== undefined) return `It has ${chars} characters.`;
  const maxItems = numberIn(text, (n) => message.maxItems(a, n));
  if (maxItems !== undefined && items !== undefined)
    return `It has ${items} items: remove ${items - maxItems}.`;
  const minItems = numberIn(text, (n) => message.minItems(a, n));
  if (minItems !== undefined && items !== undefined)
    return `It has ${items} item${items === 1 ? '' : 's'}: add ${minItems - items} more.`;
  const bound =
    numberIn(text, (n) => message.maxNumber(a, n)) ?? numberIn(text, (n) => message.minNumber(a, n));
  if (bound !== undefined) {
    const source = idSource(f);
    if (source) return `Pass an id from ${source}.`;
    const range = rangeOf(f.node);
    if (!range) return undefined;
    return f.field === 'per_page' ? `Use ${range}, and page=2, 3, … for the rest.` : `Use ${range}.`;
  }
  const last = numberIn(text, message.correctOptionRange);
  if (last !== undefined)
    return `It counts from 0: 0 is the first of the ${last + 1} options and ${last} the last.`;
  return undefined;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const ISO_LOCAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})$/;

async function timeFormatHint(f: FieldFailure): Promise<string> {
  const time = await f.brandTime();
  const given = typeof f.value === 'string' ? f.value.trim() : '';
  if (ISO_WITH_ZONE.test(given) && time) {
    const instant = Date.parse(given);
    if (Number.isFinite(instant))
      return `${given} is ${formatLocalTime(instant, time.timezone)} in the brand's timezone (${time.timezone}): pass that.`;
  }
  const local = ISO_LOCAL.exec(given);
  if (local) return `Write it as ${local[1]} ${local[2]}.`;
  if (/^\d{4}-\d{2}-\d{2}$/.test(given)) return `Write it as ${given} 00:00:00 for the start of that day.`;
  const example = time ? `${nowIn(time)} (now in ${time.timezone})` : '2026-11-24 09:00:00';
  return `Write it as ${SCHEDULED_AT_FORMAT} in the brand's timezone, e.g. ${example}.`;
}

async function futureHint(f: FieldFailure): Promise<string> {
  const time = await f.brandTime();
  if (!time) return "Pick a later time in the brand's timezone (get_queue shows its current time).";
  return `It is now ${nowIn(time)} in the brand's timezone, ${describeLocalTime(time.nowMs, time.timezone)}; pick a later time.`;
}

function gapHint(f: FieldFailure, timezone: string): string | undefined {
  const wall = typeof f.value === 'string' ? parseWallClock(f.value) : undefined;
  const gap = wall && dstGapAround(wall, timezone);
  if (!gap) return undefined;
  const before = formatLocalTime(gap.lastBeforeMs, timezone);
  const after = formatLocalTime(gap.firstAfterMs, timezone);
  const [beforeDate, beforeTime] = before.split(' ');
  const [afterDate, afterTime] = after.split(' ');
  const jump =
    beforeDate === afterDate
      ? `On ${beforeDate} the clocks in ${timezone} go from ${beforeTime} straight to ${afterTime}`
      : `The clocks in ${timezone} go from ${before} straight to ${after}`;
  return `${jump}: use ${before} or ${after} (or any other time).`;
}

async function scheduledAtRequiredHint(f: FieldFailure): Promise<string> {
  const time = await f.brandTime();
  const now = time ? ` (it is now ${nowIn(time)} in ${time.timezone})` : '';
  return `Pass scheduledAt, the brand's local time written ${SCHEDULED_AT_FORMAT}${now}, or use publishMode QUEUE for the next free queue time.`;
}

function mediaHint(f: FieldFailure): string | undefined {
  if (f.text === message.mediaType)
    return "Convert the file to one of those types: the type is read from the file's bytes, not its name.";
  if (f.text === message.mediaTooLarge) return 'Send a smaller file: the limit is 104,857,600 bytes.';
  if (f.text === message.mediaRequired && f.call.tool.name === 'upload_media') {
    const given = ['path', 'url', 'base64'].some((source) => f.call.args[source] !== undefined);
    return given
      ? 'The file given is empty: pass one with content.'
      : 'Pass exactly one of path (an absolute file path), url, or base64 with filename.';
  }
  return undefined;
}

async function fieldHint(f: FieldFailure): Promise<string | undefined> {
  const { attribute: a, text } = f;
  const media = mediaHint(f);
  if (media) return media;
  if (text === message.notAllowed(a)) return unknownFieldHint(f);
  if (text === message.selectedInvalid(a)) return selectedInvalidHint(f);
  if (text === message.required(a)) return requiredHint(f);
  const types = [message.string, message.integer, message.boolean, message.array, message.invalid];
  if (types.some((type) => text === type(a))) return typeHint(f);
  if (text === message.format(a)) return 'Pass an absolute http(s) URL, e.g. https://example.com/page.';
  if (text === message.dateFormat(a, SCHEDULED_AT_FORMAT)) return timeFormatHint(f);
  if (text === message.scheduledAtFuture) return futureHint(f);
  if (text === message.scheduledAtRequired) return scheduledAtRequiredHint(f);
  if (text === message.scheduledAtRange) return 'Pick an earlier date.';
  const gapZone = textIn(text, message.scheduledAtGap);
  if (gapZone) return gapHint(f, gapZone);
  if (text === message.captionRequired) {
    const caption = expectedValue(schemaAt(fullInputSchemaOf(f.call.tool), ['caption']));
    return `Pass caption${caption ? ` (${caption})` : ''}, or a poll.`;
  }
  if (/^media\.\d+$/.test(f.field) && text === message.mediaEitherIdOrUrl(Number(f.segments[1]))) {
    return isPlainObject(f.value) && f.value.id !== undefined && f.value.url !== undefined
      ? 'Keep either id or url.'
      : 'Pass id (from upload_media) or url.';
  }
  if (text === message.collectionEmpty)
    return 'Call list_collections with the brandId to find a collection with channels.';
  if (/^The post \d+ is [a-z ]+: only draft, queued and scheduled posts can be /.test(text))
    return 'Create a new post with create_post instead.';
  return sizeHint(f);
}

async function fieldLine(
  call: FailedCall,
  field: string,
  text: string,
  brandTime: FieldFailure['brandTime'],
) {
  const segments = field.split('.');
  const failure: FieldFailure = {
    call,
    field,
    segments,
    attribute: attributeName(field),
    text,
    node: schemaAt(fullInputSchemaOf(call.tool), segments),
    value: valueAt(call.args, segments),
    brandTime,
  };
  let hint: string | undefined;
  try {
    hint = await fieldHint(failure);
  } catch {
    hint = undefined;
  }
  return `- ${field}: ${text}${hint ? ` ${hint}` : ''}`;
}

function notFoundHint(key: string): string | undefined {
  if (Object.hasOwn(NOT_FOUND_HINTS, key)) return NOT_FOUND_HINTS[key];
  if (/^platforms\.youtube\.playlists\.\d+\.channelId$/.test(key)) return NOT_FOUND_HINTS.channel;
  return undefined;
}

/**
 * The lines of a failed call's text: the error's message, then for a 422 one line per field error
 * (`- poll.period: The selected poll.period is invalid. Use one of: 1d, 3d, 7d.`), all of them; for a
 * 404 or 401 the message with its fix.
 */
export async function explainError(error: ServiceError, call: FailedCall): Promise<string[]> {
  if (error instanceof ValidationError) {
    const brandTime = brandTimeOf(call);
    const lines = Object.entries(error.errors).flatMap(([field, texts]) =>
      texts.map((text) => fieldLine(call, field, text, brandTime)),
    );
    return [error.message, ...(await Promise.all(lines))];
  }
  if (error instanceof NotFoundError) {
    const hint = notFoundHint(error.key);
    // A message without its full stop would run into the hint's first sentence.
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    return [hint ? `${message} ${hint}` : message];
  }
  // Remote mode: the cause names the server that refused the key and the settings to check.
  if (error.cause instanceof Error) return [`${error.cause.message} Retrying will not help; tell the user.`];
  return [
    `${error.message} The server refused the API key: the user must set SOCIAL_PUBLISHER_API_KEY to a valid key; retrying will not help.`,
  ];
}
