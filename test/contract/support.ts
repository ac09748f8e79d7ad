/** Shared helpers of the contract suite: demo ids, error assertions, request builders. */
import { expect } from 'vitest';
import { type FieldErrors, NotFoundError, toErrorBody, ValidationError } from '../../src/domain/errors.js';

/** Ids of the demo workspace (product.md), verified by the list tests. */
export const BRAND = { northwind: 1, kite: 2 } as const;
export const CHANNEL = {
  facebook: 1,
  instagram: 2,
  threads: 3,
  linkedin: 4,
  googleBusiness: 5,
  youtube: 6,
  tiktok: 7,
  pinterest: 8,
  x: 9,
  mastodon: 10,
  bluesky: 11,
  telegram: 12,
  kiteInstagram: 13,
  kiteX: 14,
  kiteBluesky: 15,
  kiteLinkedIn: 16,
} as const;
export const COLLECTION = { everywhere: 1, visual: 2, conversation: 3, newsletter: 4, kiteAll: 5 } as const;

/** `<YYYY-MM-DD>T<HH:MM:SS>.<microseconds>Z` (http-interface.md, product.md). */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export const VALIDATION_MESSAGE = 'The given data was invalid.';

/** The error a call fails with; fails the test when the call succeeds. */
export async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  let value: unknown;
  try {
    value = await call;
  } catch (error) {
    return error;
  }
  throw new Error(`Expected the call to fail, but it succeeded with ${JSON.stringify(value)}`);
}

/** Asserts a 422 with the spec's error body and returns its field errors. */
export async function expectValidation(call: Promise<unknown>): Promise<FieldErrors> {
  const error = await rejectionOf(call);
  expect(error).toBeInstanceOf(ValidationError);
  const validation = error as ValidationError;
  expect(validation.status).toBe(422);
  const body = toErrorBody(validation);
  expect(body.status).toBe('error');
  expect(body.message).toBe(VALIDATION_MESSAGE);
  expect(Object.keys(body.errors).length).toBeGreaterThan(0);
  for (const messages of Object.values(body.errors)) {
    expect(Array.isArray(messages)).toBe(true);
    for (const text of messages) expect(typeof text).toBe('string');
  }
  return validation.errors;
}

/** Asserts a 422 whose errors are exactly `expected`. */
export async function expectErrors(call: Promise<unknown>, expected: FieldErrors): Promise<void> {
  expect(await expectValidation(call)).toEqual(expected);
}

/** Asserts a 404 with one key whose value equals the message. */
export async function expectNotFound(call: Promise<unknown>, key: string, message: string): Promise<void> {
  const error = await rejectionOf(call);
  expect(error).toBeInstanceOf(NotFoundError);
  const notFound = error as NotFoundError;
  expect(notFound.status).toBe(404);
  expect(notFound.key).toBe(key);
  expect(notFound.message).toBe(message);
  expect(toErrorBody(notFound)).toEqual({ status: 'error', message, errors: { [key]: message } });
}

export function expectBrandNotFound(call: Promise<unknown>): Promise<void> {
  return expectNotFound(call, 'brand', 'Brand not found.');
}

export function expectCollectionNotFound(call: Promise<unknown>): Promise<void> {
  return expectNotFound(call, 'collection', 'Collection not found.');
}

export const PLAYLIST_CHANNEL_MESSAGE = 'Channel not found or does not belong to the brand';

/** A valid DRAFT request in Northwind's "Everywhere" collection, with `changes` applied. */
export function postRequest(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    brandId: BRAND.northwind,
    collectionId: COLLECTION.everywhere,
    publishMode: 'DRAFT',
    caption: 'Fresh beans are in.',
    ...changes,
  };
}

/** `postRequest` without the named fields. */
export function postRequestWithout(...fields: string[]): Record<string, unknown> {
  const request = postRequest();
  for (const field of fields) delete request[field];
  return request;
}

export const VALID_POLL = { question: 'Which roast?', options: ['Light', 'Dark'], period: '1d' } as const;

/** `n` characters of `unit` (a one-code-point string). */
export function chars(n: number, unit = 'a'): string {
  return unit.repeat(n);
}

/** `n` code points of one emoji (two UTF-16 units each). */
export function emoji(n: number): string {
  return '😀'.repeat(n);
}
