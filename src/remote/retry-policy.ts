/**
 * When the remote client tries a request again, and how long it waits first. Only a GET is ever tried
 * again (the caller decides that): a POST, PATCH or DELETE that failed midway may have taken effect.
 */

export interface RetryPolicy {
  /** Further attempts after the first. */
  maxRetries: number;
  /** The wait before the first retry; it doubles with each further one. */
  baseDelayMs: number;
  /** No wait is longer, whatever the backoff or the server's Retry-After says. */
  maxDelayMs: number;
}

/** 429 (rate limited) and every 5xx: the server may answer differently a moment later. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait before retry number `retry` (1 for the first): exponential backoff with "equal jitter",
 * half of the step fixed and half random, so clients that failed together do not retry together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * A Retry-After header in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3), capped at
 * `maxDelayMs`. Undefined when absent or unreadable, so the backoff applies instead.
 */
export function retryAfterDelay(
  header: string | string[] | undefined,
  maxDelayMs: number,
  nowMs: number = Date.now(),
): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  let delayMs: number;
  if (/^\d+$/.test(value)) delayMs = Number(value) * 1000;
  else {
    // An HTTP date begins with the day's name; anything else (such as "-1") is unreadable.
    const dateMs = /^[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(dateMs)) return undefined;
    delayMs = Math.max(0, dateMs - nowMs);
  }
  return Math.min(delayMs, maxDelayMs);
}

/** How a request failed before an answer was read, in words, and whether trying again may help. */
export interface TransportFailure {
  description: string;
  retryable: boolean;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ECONNABORTED: 'the connection was aborted',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENETDOWN: 'the network is down',
  EAI_AGAIN: 'the host name could not be resolved (temporary DNS failure)',
  ENOTFOUND: 'the host name could not be resolved',
  UND_ERR_SOCKET: 'the connection was closed unexpectedly',
};

/** Reads an undici or socket error; `timeoutMs` is only for the words. */
export function describeTransportFailure(error: unknown, timeoutMs: number): TransportFailure {
  const code = errorCode(error);
  const detail = error instanceof Error && error.message ? ` (${error.message})` : '';
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { description: `no connection within ${timeoutMs} ms${detail}`, retryable: true };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { description: `no answer within ${timeoutMs} ms`, retryable: true };
    case 'UND_ERR_BODY_TIMEOUT':
      return { description: `the answer stalled for more than ${timeoutMs} ms`, retryable: true };
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return { description: 'the answer was too large', retryable: false };
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return { description: 'the client is closed', retryable: false };
  }
  if (code && code in NETWORK_CODES) {
    return { description: `${NETWORK_CODES[code]}${detail}`, retryable: true };
  }
  return { description: `the request failed${detail}`, retryable: false };
}

function errorCode(error: unknown): string | undefined {
  // Node reports "connection refused" to every address of a host as an AggregateError without a code.
  if (error instanceof AggregateError && !(error as NodeJS.ErrnoException).code) {
    return errorCode(error.errors[0]);
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
