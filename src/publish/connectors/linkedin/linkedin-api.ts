/**
 * One request to LinkedIn's API with the headers every versioned (`/rest`) call needs:
 * `LinkedIn-Version: YYYYMM` and `X-Restli-Protocol-Version: 2.0.0` (learn.microsoft.com, Posts API:
 * "All APIs require the request header LinkedIn-Version"). LinkedIn retires a version about a year
 * after it ships (426 NONEXISTENT_VERSION), so the version is a constant that a connection's
 * `linkedinVersion` setting replaces (202605: the newest version whose documentation we read,
 * learn.microsoft.com/linkedin/marketing/...?view=li-lms-2026-05).
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { callPlatform, type PlatformAnswer, platformOrigin } from '../../platform-http.js';

/** The API version sent unless the connection's settings name another (`linkedinVersion`). */
export const LINKEDIN_VERSION = '202605';

export const LINKEDIN_API_ROOT = 'https://api.linkedin.com';
export const LINKEDIN_AUTH_ROOT = 'https://www.linkedin.com';

export interface LinkedInCall {
  method: 'GET' | 'POST' | 'PUT';
  /** An absolute URL (an upload URL LinkedIn gave), or a path on the API root. */
  url: string;
  token: string;
  version: string;
  /** JSON (an object), or bytes. */
  json?: unknown;
  bytes?: Uint8Array | Readable;
  /** Sent with `bytes`: `content-length`. */
  headers?: Record<string, string>;
  timeoutMs: number;
  userAgent: string;
  dispatcher?: Dispatcher;
  secrets: readonly string[];
}

/** Sends the call; any answer is returned (the caller decides on the status). */
export function callLinkedIn(apiRoot: string, call: LinkedInCall): Promise<PlatformAnswer> {
  const url = /^https?:\/\//.test(call.url) ? call.url : `${apiRoot}${call.url}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${call.token}`,
    'linkedin-version': call.version,
    'x-restli-protocol-version': '2.0.0',
    accept: 'application/json',
    'user-agent': call.userAgent,
    ...call.headers,
  };
  let body: string | Uint8Array | Readable | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.bytes !== undefined) {
    headers['content-type'] ??= 'application/octet-stream';
    body = call.bytes;
  }
  return callPlatform(url, {
    method: call.method,
    headers,
    ...(body === undefined ? {} : { body }),
    timeoutMs: call.timeoutMs,
    ...(call.dispatcher ? { dispatcher: call.dispatcher } : {}),
    secrets: call.secrets,
  });
}

/** `https://host` of an address, http only to a loopback address (a local stand-in). */
export function linkedinOrigin(address: string, what: string): string {
  return platformOrigin(address, 'LinkedIn', what, LINKEDIN_API_ROOT);
}
