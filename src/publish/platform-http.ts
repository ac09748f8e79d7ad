/**
 * One HTTP request to a platform, for the connectors that speak to it directly (Mastodon, Telegram, the
 * webhook): a deadline on the whole exchange, the answer read within a size limit, and a failure to get
 * an answer told apart by whether the request may have reached the platform. That difference decides
 * whether a send may be repeated: a connection that was never made sent nothing (`transient`), while a
 * request that went out and got no answer may have been carried out (`unknown`).
 */
import { type Dispatcher, type FormData, request } from 'undici';

export interface PlatformAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text, cut at the limit. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** No answer came. `sent` is false only when the request certainly never reached the platform. */
export class PlatformUnreachable extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
    this.name = 'PlatformUnreachable';
  }
}

export interface PlatformRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  /** JSON or form text, or a multipart form (undici's FormData). */
  body?: string | FormData;
  /** Deadline of the whole exchange: connecting, sending and reading the answer. */
  timeoutMs: number;
  dispatcher?: Dispatcher;
  /** Most bytes of the answer read; the rest is discarded. Default 1 MiB. */
  limitBytes?: number;
  /** Strings never to repeat in an error message (a token inside the URL). */
  secrets?: readonly string[];
}

/** Connection errors that happen before any byte of the request is written. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);

export async function callPlatform(url: string, options: PlatformRequest): Promise<PlatformAnswer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: options.method,
      headers: options.headers,
      body: options.body,
      signal,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
  } catch (error) {
    throw unreachable(error, signal.aborted, options);
  }
  let text: string;
  try {
    text = await readLimited(response.body, options.limitBytes ?? 1024 * 1024);
  } catch (error) {
    // The platform answered with a status: the request arrived, whatever became of the body.
    throw unreachable(error, signal.aborted, options, true);
  }
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

function unreachable(
  error: unknown,
  timedOut: boolean,
  options: PlatformRequest,
  answered = false,
): PlatformUnreachable {
  const code = errorCode(error);
  const sent = answered || !(code !== undefined && NOT_SENT.has(code));
  let detail: string;
  if (timedOut || code?.endsWith('_TIMEOUT')) detail = `no answer within ${options.timeoutMs} ms`;
  else {
    const message = error instanceof Error ? error.message : String(error);
    detail = code && !message.includes(code) ? `${code}: ${message}` : message || code || 'unknown error';
  }
  for (const secret of options.secrets ?? []) {
    if (secret) detail = detail.replaceAll(secret, '<secret>');
  }
  return new PlatformUnreachable(detail, sent);
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  // Node reports a failed connection to a name with several addresses as an AggregateError.
  if (Array.isArray(errors)) return errorCode(errors[0]);
  return cause ? errorCode(cause) : undefined;
}

/** Reads at most `limit` bytes of a response body and discards the rest, so the connection is freed. */
export async function readLimited(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/**
 * How long a platform asks us to wait, in ms, from the headers platforms use: `Retry-After` (seconds
 * or an HTTP date), `X-RateLimit-Reset` (Mastodon: an ISO time) or `RateLimit-Reset` (Bluesky: unix
 * seconds). Undefined when none is present or readable.
 */
export function retryAfterMs(
  headers: Record<string, string | string[] | undefined>,
  nowMs: number,
): number | undefined {
  const first = (name: string) => {
    const value = headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
  };
  const retryAfter = first('retry-after');
  if (retryAfter !== undefined) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  const reset = first('x-ratelimit-reset') ?? first('ratelimit-reset');
  if (reset !== undefined) {
    if (/^\d+$/.test(reset)) {
      // Unix seconds (Bluesky); a small number is the IETF draft's seconds from now.
      const seconds = Number(reset);
      return seconds < 1_000_000_000 ? seconds * 1000 : Math.max(0, seconds * 1000 - nowMs);
    }
    const at = Date.parse(reset);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  return undefined;
}

/** One line of at most `limit` characters of what a platform said, for a reason shown to the user. */
export function summarise(text: string, limit = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}
