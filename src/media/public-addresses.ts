/**
 * Public addresses of uploaded media, for platforms that fetch media from a URL (Instagram, Threads):
 * `serve` behind SOCIAL_PUBLISHER_PUBLIC_URL hands out `<public URL>/media/<token>`, where the token
 * names one file of one brand and when the address stops working, signed with a key derived from the
 * secret key (HMAC-SHA256). Nothing else of the store is reachable through it: the token is checked
 * before anything is read, and it names a media id, never a path.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long an address works by default: longer than a platform takes to fetch, short of a leak's use. */
export const MEDIA_ADDRESS_TTL_MS = 60 * 60_000;

export interface SignedMedia {
  brandId: number;
  mediaId: string;
  expiresAtMs: number;
}

/** What a token came to: the file it names, or why it names none. */
export type MediaAddressCheck =
  | { ok: true; media: SignedMedia }
  | { ok: false; reason: 'invalid' | 'expired' };

const MEDIA_ID = /^[A-Za-z0-9_-]{1,100}$/;

export class MediaAddresses {
  constructor(
    /** The signing key (`SecretBox.derive('media addresses')`). */
    private readonly key: Buffer,
    /** The public origin, without a trailing slash. */
    private readonly publicUrl: string,
  ) {}

  /** The address of one file of a brand, working until `expiresAtMs`. */
  address(brandId: number, mediaId: string, expiresAtMs: number): string {
    if (!Number.isSafeInteger(brandId) || brandId < 1 || !MEDIA_ID.test(mediaId)) {
      throw new Error(`No public address for media ${JSON.stringify(mediaId)} of brand ${brandId}.`);
    }
    const payload = `${brandId}.${mediaId}.${Math.ceil(expiresAtMs / 1000)}`;
    return `${this.publicUrl}/media/${payload}.${this.sign(payload)}`;
  }

  /** Checks a token (the last segment of an address) at `nowMs`. */
  check(token: string, nowMs: number): MediaAddressCheck {
    const parts = token.split('.');
    if (parts.length !== 4) return { ok: false, reason: 'invalid' };
    const [brand, mediaId, expires, signature] = parts as [string, string, string, string];
    const payload = `${brand}.${mediaId}.${expires}`;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { ok: false, reason: 'invalid' };
    if (!/^\d{1,15}$/.test(brand) || !MEDIA_ID.test(mediaId) || !/^\d{1,12}$/.test(expires)) {
      return { ok: false, reason: 'invalid' };
    }
    const expiresAtMs = Number(expires) * 1000;
    if (expiresAtMs <= nowMs) return { ok: false, reason: 'expired' };
    return { ok: true, media: { brandId: Number(brand), mediaId, expiresAtMs } };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
