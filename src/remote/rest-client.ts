/**
 * One REST request to a server speaking http-interface.md: the bearer key on every request, a timeout
 * on every wait, GETs tried again on network failures, timeouts, 429 and 5xx (with backoff and jitter,
 * honouring Retry-After), the answer parsed with the domain's zod schemas and error answers turned back
 * into the service's typed errors. POST, PATCH and DELETE are sent once: a failure midway may have
 * taken effect, and sending again could publish twice. The exception is the server saying so: a 503
 * whose database was unavailable with no change in doubt (error-response.ts `safeToSendAgain`) is tried
 * again as a GET is (a JSON body only; an upload's is not kept).
 */
import { Agent, type FormData, request } from 'undici';
import { z } from 'zod';
import { Pagination } from '../domain/schemas.js';
import { attemptsText, errorFromResponse, safeToSendAgain } from './error-response.js';
import {
  backoffDelay,
  describeTransportFailure,
  isRetryableStatus,
  type RetryPolicy,
  retryAfterDelay,
  sleep,
  type TransportFailure,
} from './retry-policy.js';

export interface RestClientOptions {
  baseUrl: string;
  apiKey: string;
  /**
   * The longest a JSON exchange may take, per attempt; for an upload, the longest wait with nothing
   * happening (to connect, for the answer after the last byte sent, between chunks of the answer).
   */
  timeoutMs: number;
  retry: RetryPolicy;
  userAgent: string;
}

export interface RestCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below the base URL, e.g. `/brands/1/channels`. */
  path: string;
  query?: Record<string, unknown>;
  json?: unknown;
  form?: FormData;
}

/** Answers larger than this are refused rather than held in memory. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** `{ status: 'success', data }` */
export function successBody<S extends z.ZodType>(data: S) {
  return z.object({ status: z.literal('success'), data });
}

/** `{ status: 'success', data: [...], pagination }`; the page URLs are not kept. */
export function successList<S extends z.ZodType>(item: S) {
  return z.object({
    status: z.literal('success'),
    data: z.array(item),
    pagination: Pagination.pick({ currentPage: true, perPage: true, total: true, lastPage: true }),
  });
}

type Answer =
  | { kind: 'answer'; status: number; retryAfter: string | string[] | undefined; text: string }
  | { kind: 'failure'; failure: TransportFailure; error: unknown };

export class RestClient {
  private readonly agent: Agent;
  private readonly root: string;

  constructor(private readonly options: RestClientOptions) {
    this.root = apiRoot(options.baseUrl);
    checkApiKey(options.apiKey);
    this.agent = new Agent({
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      maxResponseSize: MAX_ANSWER_BYTES,
    });
  }

  /** Sends the call (a GET up to 1 + maxRetries times) and parses a 2xx answer with `schema`. */
  async send<S extends z.ZodType>(call: RestCall, schema: S): Promise<z.output<S>> {
    const request = `${call.method} ${this.root}${call.path}`;
    const maxAttempts = 1 + this.options.retry.maxRetries;
    for (let attempt = 1; ; attempt++) {
      const answer = await this.attempt(call);
      const retryable =
        answer.kind === 'failure'
          ? answer.failure.retryable && call.method === 'GET'
          : call.method === 'GET'
            ? isRetryableStatus(answer.status)
            : !call.form && safeToSendAgain(answer.status, answer.text);
      if (retryable && attempt < maxAttempts) {
        const retryAfter =
          answer.kind === 'answer'
            ? retryAfterDelay(answer.retryAfter, this.options.retry.maxDelayMs)
            : undefined;
        await sleep(retryAfter ?? backoffDelay(attempt, this.options.retry));
        continue;
      }
      if (answer.kind === 'failure') {
        const text = `${request} failed after ${attemptsText(attempt)}: ${answer.failure.description}.`;
        throw new Error(this.redact(text), { cause: answer.error });
      }
      if (answer.status < 200 || answer.status > 299) {
        throw errorFromResponse(answer.status, answer.text, {
          request,
          apiRoot: this.root,
          attempts: attempt,
          redact: (text) => this.redact(text),
        });
      }
      return parseAnswer(request, answer.text, schema);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async attempt(call: RestCall): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    let body: string | FormData | undefined;
    if (call.form) body = call.form;
    else if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    }
    // A JSON exchange must be over within timeoutMs. An upload may take longer while bytes keep moving:
    // the agent's headers and body timeouts, which measure inactivity, still guard it (to about 1 s).
    const deadline = call.form ? undefined : new AbortController();
    const timer = deadline && setTimeout(() => deadline.abort(), this.options.timeoutMs);
    try {
      const response = await request(`${this.root}${call.path}${queryString(call.query)}`, {
        method: call.method,
        headers,
        body,
        dispatcher: this.agent,
        signal: deadline?.signal,
      });
      const text = await response.body.text();
      return {
        kind: 'answer',
        status: response.statusCode,
        retryAfter: response.headers['retry-after'],
        text,
      };
    } catch (error) {
      const failure = deadline?.signal.aborted
        ? { description: `no answer within ${this.options.timeoutMs} ms`, retryable: true }
        : describeTransportFailure(error, this.options.timeoutMs);
      return { kind: 'failure', failure, error };
    } finally {
      clearTimeout(timer);
    }
  }

  /** No message of ours carries the key; this also covers a server that echoes it. */
  private redact(text: string): string {
    const key = this.options.apiKey;
    return key.length >= 6 ? text.split(key).join('[API key]') : text;
  }
}

/** The base URL without a trailing slash: `http://host:8787/v1`. */
function apiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`The API base URL is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`The API base URL must be http or https: ${baseUrl}`);
  }
  // Credentials in the URL would be shown in error messages; the API key is the only credential.
  if (url.username || url.password) throw new Error('The API base URL must not contain a user or password.');
  if (url.search || url.hash)
    throw new Error(`The API base URL must not have a query or fragment: ${baseUrl}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function checkApiKey(apiKey: string): void {
  if (apiKey.trim() === '') throw new Error('Remote mode needs an API key.');
  // The key itself is never put into a message.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new Error('The API key may only contain visible ASCII characters (no spaces).');
  }
}

/** Query parameters as the server reads them: strings; null or undefined means absent. */
function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    params.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function parseAnswer<S extends z.ZodType>(request: string, text: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`The answer to ${request} is not JSON.`);
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issues = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  throw new Error(`The answer to ${request} is not in the form of the interface: ${issues}.`);
}
