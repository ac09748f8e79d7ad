/**
 * What a post becomes on Bluesky, apart from the network: the text of its `app.bsky.feed.post` record
 * (caption, link and a written-out poll: blueskyPostText, in domain/platform-rules.ts, where the
 * pre-flight reads it too) and the checks of text and images against Bluesky's limits, the
 * record keys that make a resend create nothing new, and an image's size for its aspect ratio. The
 * connector (bluesky-connector.ts) adds what needs the PDS: facets, uploaded images, reply references.
 */
import { createHash } from 'node:crypto';
import { BLUESKY_TEXT_BYTES } from '../../../domain/capabilities.js';
import { textLength } from '../../../domain/preflight.js';
import type { MediaSource } from '../../connector.js';

/** Bluesky's limits (lexicons app.bsky.feed.post and app.bsky.embed.images). */
export const BLUESKY_TEXT_GRAPHEMES = 300;
export const BLUESKY_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg'];
export const BLUESKY_MAX_IMAGES = 4;
/** The lexicon's `maxSize` of an embedded image (2 MB since 2025, 1 MB before); the PDS enforces it. */
export const BLUESKY_MAX_IMAGE_BYTES = 2_000_000;

/** Content Bluesky would not take, found before anything is sent; the message says why. */
export class Refused extends Error {}

/** Graphemes of a text, as Bluesky counts them, and as the pre-flight counts them. */
export function graphemeCount(text: string): number {
  return textLength(text, { textUnit: 'graphemes' });
}

/** Throws Refused for a text longer than Bluesky takes; `what` names it in the reason. */
export function checkText(text: string, what: string): void {
  const graphemes = graphemeCount(text);
  if (graphemes > BLUESKY_TEXT_GRAPHEMES) {
    throw new Refused(
      `${what} is ${graphemes} characters; Bluesky takes ${BLUESKY_TEXT_GRAPHEMES}: shorten it (or give platforms.bluesky.caption).`,
    );
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > BLUESKY_TEXT_BYTES) {
    throw new Refused(`${what} is ${bytes} bytes in UTF-8; Bluesky takes ${BLUESKY_TEXT_BYTES}.`);
  }
}

/** Throws Refused for a file Bluesky would not embed as an image. */
export function checkImage(file: Pick<MediaSource, 'type' | 'name' | 'size'>): void {
  if (!BLUESKY_IMAGE_TYPES.includes(file.type)) {
    const video = file.type.startsWith('video/')
      ? ' (video goes through Bluesky’s separate video service, which this connector does not support)'
      : '';
    throw new Refused(`Bluesky takes PNG and JPEG images; ${file.name} is ${file.type}${video}.`);
  }
  if (file.size > BLUESKY_MAX_IMAGE_BYTES) {
    throw new Refused(
      `${file.name} is ${file.size} bytes; Bluesky takes images of at most ${BLUESKY_MAX_IMAGE_BYTES} bytes (2 MB).`,
    );
  }
}

/**
 * The facets to send of those RichText detected: a mention whose handle did not resolve has an empty
 * DID, which the PDS would refuse; it is dropped and its text stays plain.
 */
export function usableFacets<F extends { features: object[] }>(facets: readonly F[] | undefined): F[] {
  return (facets ?? [])
    .map((facet) => ({
      ...facet,
      features: facet.features.filter((feature) => !('did' in feature) || Boolean(feature.did)),
    }))
    .filter((facet) => facet.features.length > 0);
}

const TID_ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';

/**
 * A record key for a record sent under `idempotencyKey`: a TID (the post lexicon's `key: tid`) whose
 * time is `atMs` plus a microsecond part, and whose clock id is taken from a hash of the key. Every
 * attempt of a delivery gets the same key, so the PDS holds at most one record per delivery. `round`
 * gives the next key of the same delivery, for the (about one in a million) case where another
 * delivery of the account due in the same millisecond holds the first.
 */
export function blueskyRecordKey(idempotencyKey: string, atMs: number, round = 0): string {
  const hash = createHash('sha256')
    .update(round === 0 ? idempotencyKey : `${idempotencyKey}#${round}`)
    .digest();
  const micros = BigInt(Math.max(0, Math.floor(atMs))) * 1000n + BigInt(hash.readUInt16BE(0) % 1000);
  let value = (micros << 10n) | BigInt(hash.readUInt16BE(2) & 0x3ff);
  let key = '';
  for (let i = 0; i < 13; i++) {
    key = TID_ALPHABET[Number(value & 31n)] + key;
    value >>= 5n;
  }
  return key;
}

/** The time (UTC ms) in a TID record key, or undefined when the key is not a TID. */
export function recordKeyTimeMs(rkey: string): number | undefined {
  if (!/^[234567a-j][234567a-z]{12}$/.test(rkey)) return undefined;
  let value = 0n;
  for (const char of rkey) value = (value << 5n) | BigInt(TID_ALPHABET.indexOf(char));
  return Number((value >> 10n) / 1000n);
}

/** The parts of an `at://did/collection/rkey` URI. */
export function parseAtUri(uri: string): { repo: string; collection: string; rkey: string } | undefined {
  const match = /^at:\/\/([^/]+)\/([^/]+)\/([^/?#]+)$/.exec(uri);
  return match ? { repo: match[1]!, collection: match[2]!, rkey: match[3]! } : undefined;
}

/** Width and height of a PNG or JPEG, for the embed's aspect ratio; undefined when unreadable. */
export function imageSize(bytes: Uint8Array, type: string): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'image/png') {
    // The IHDR chunk comes first: width and height at bytes 16 and 20.
    return bytes.length >= 24 ? positive(view.getUint32(16), view.getUint32(20)) : undefined;
  }
  if (type !== 'image/jpeg') return undefined;
  // Walk the segments to the first start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC).
  let offset = 2;
  while (offset + 9 <= bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1]!;
    const length = view.getUint16(offset + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return positive(view.getUint16(offset + 7), view.getUint16(offset + 5));
    }
    offset += 2 + length;
  }
  return undefined;
}

function positive(width: number, height: number): { width: number; height: number } | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}
