/**
 * One HTTP request to a platform, for the connectors that speak to it directly (Mastodon, Telegram, the
 * webhook): a deadline on the whole exchange, the answer read within a size limit, and a failure to get
 * an answer told apart by whether the request may have reached the platform. That difference decides
 * whether a send may be repeated: a connection that was never made sent nothing (`transient`), while a
 * request that went out and got no answer may have been carried out (`unknown`).
 */
import type { Readable } from 'node:stream';
import { type Dispatcher, type FormData, request } from 'undici';

export interface PlatformAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text, cut at the limit. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * No answer came. `sent` is false only when the request certainly never reached the platform;
 * `timedOut` when the deadline ended it; `status` when the platform answered with a status but its
 * body could not be read.
 */
export class PlatformUnreachable extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
    readonly timedOut = false,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'PlatformUnreachable';
  }
}

export interface PlatformRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  headers?: Record<string, string>;
  /** JSON or form text, a multipart form (undici's FormData), or bytes (a part, a file streamed). */
  body?: string | FormData | Uint8Array | Readable;
  /** Deadline of the whole exchange: connecting, sending and reading the answer. */
  timeoutMs: number;
  dispatcher?: Dispatcher;
  /** Most bytes of the answer read; the rest is discarded. Default 1 MiB. */
  limitBytes?: number;
  /** Strings never to repeat in an error message (a token inside the URL). */
  secrets?: readonly string[];
  /** What replaces a secret in an error message. Default `<secret>`. */
  secretMask?: string;
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
    throw unreachable(error, signal.aborted, options, response.statusCode);
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
  aborted: boolean,
  options: PlatformRequest,
  status?: number,
): PlatformUnreachable {
  const code = errorCode(error);
  const sent = status !== undefined || !(code !== undefined && NOT_SENT.has(code));
  const timedOut = aborted || code?.endsWith('_TIMEOUT') === true;
  let detail: string;
  if (timedOut) detail = `no answer within ${options.timeoutMs} ms`;
  else {
    const message = error instanceof Error ? error.message : String(error);
    detail = code && !message.includes(code) ? `${code}: ${message}` : message || code || 'unknown error';
  }
  detail = hideSecrets(detail, options.secrets ?? [], options.secretMask);
  return new PlatformUnreachable(detail, sent, timedOut, status);
}

/** `text` with each secret replaced by `mask`: reasons and logs never carry one. */
export function hideSecrets(text: string, secrets: readonly string[], mask = '<secret>'): string {
  return secrets.reduce((out, secret) => (secret ? out.replaceAll(secret, mask) : out), text);
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
  const first = (name: string) => headerValue(headers, name);
  const retryAfter = first('retry-after');
  if (retryAfter !== undefined) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  const reset = resetAtMs(first('x-ratelimit-reset') ?? first('ratelimit-reset'), nowMs);
  return reset === undefined ? undefined : Math.max(0, reset - nowMs);
}

/**
 * When a rate limit's window ends (UTC ms), from a reset header: an ISO or HTTP date (Mastodon), unix
 * seconds (Bluesky), or, below 1,000,000,000, the IETF draft's seconds from now.
 */
export function resetAtMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) {
    const seconds = Number(value);
    return seconds < 1_000_000_000 ? nowMs + seconds * 1000 : seconds * 1000;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

/** The first value of a header, trimmed; undefined when absent or empty. */
export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

/** One line of at most `limit` characters of what a platform said, for a reason shown to the user. */
export function summarise(text: string, limit = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}

/**
 * The origin (`https://host`) of a platform's address the operator gave, http only to a loopback
 * address (a local stand-in, a test): `what` names the address in the messages (`API`, `sign-in`).
 */
export function platformOrigin(address: string, platform: string, what: string, example: string): string {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    throw new Error(`"${address}" is not a ${platform} ${what} address: give a URL like ${example}.`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`The ${platform} ${what} address must use https, not ${url.protocol}`);
  }
  return url.origin;
}
