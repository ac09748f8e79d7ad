/**
 * upload_media with `base64` and `filename`: the type from the decoded bytes (the filename decides
 * nothing), the required filename, invalid and empty content, the 100 MB limit on the decoded size at
 * its boundary, and deduplication with the other sources.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  jpegBytes,
  MEDIA_LIMIT_BYTES,
  MediaFiles,
  movBytes,
  mp4Bytes,
  pdfBytes,
  pngBytes,
  textBytes,
} from '../contract/media-files.js';
import { BRAND, expectErrors } from '../contract/support.js';
import {
  expectNothingKept,
  type MediaWorld,
  openMediaWorld,
  REQUIRED_MESSAGE,
  TOO_LARGE_MESSAGE,
  TYPE_MESSAGE,
} from './support.js';

let world: MediaWorld;
beforeEach(async () => {
  world = await openMediaWorld();
});
afterEach(() => world.close());

const upload = (fields: Record<string, unknown>) =>
  world.service.uploadMedia({ brandId: BRAND.northwind, ...fields });

/**
 * Base64 text that decodes to exactly `size` bytes starting with `head` (then zeros), built without
 * ever holding the decoded bytes: the head padded to whole 3-byte groups, then 'A's (zero bits).
 */
function base64OfSize(head: Buffer, size: number): string {
  const padded = Buffer.concat([head, Buffer.alloc((3 - (head.length % 3)) % 3)]);
  const rest = size - padded.length;
  const text = padded.toString('base64') + 'A'.repeat(Math.ceil((rest * 4) / 3));
  expect(Buffer.byteLength(text, 'base64')).toBe(size);
  return text;
}

describe('upload_media from base64', () => {
  it.each([
    ['photo.png', pngBytes, 'image/png'],
    ['photo.jpg', jpegBytes, 'image/jpeg'],
    ['clip.mp4', mp4Bytes, 'video/mp4'],
    ['clip.mov', movBytes, 'video/quicktime'],
    ['deck.pdf', pdfBytes, 'application/pdf'],
  ])('stores %s as %s with its decoded size', async (filename, bytes, type) => {
    const media = await upload({ base64: bytes().toString('base64'), filename });
    expect(media).toEqual({ id: expect.any(String), type, size: bytes().length });
    expect(world.mediaRows()).toBe(1);
    expect(world.stagingEntries()).toEqual([]);
  });

  it('reads the type from the bytes: the filename (any case, any extension) decides nothing', async () => {
    expect((await upload({ base64: jpegBytes().toString('base64'), filename: 'PHOTO.JPG' })).type).toBe(
      'image/jpeg',
    );
    expect((await upload({ base64: pngBytes(1).toString('base64'), filename: 'report.pdf' })).type).toBe(
      'image/png',
    );
    expect((await upload({ base64: pdfBytes().toString('base64'), filename: 'no-extension' })).type).toBe(
      'application/pdf',
    );
  });

  it('accepts base64 wrapped over lines and the URL-safe alphabet, as the same file', async () => {
    const bytes = pdfBytes();
    const plain = bytes.toString('base64');
    expect(plain).toMatch(/[+/]/); // so that the URL-safe form really differs
    const first = await upload({ base64: plain, filename: 'a.pdf' });
    const wrapped = plain.replace(/.{76}/g, '$&\r\n');
    expect(await upload({ base64: wrapped, filename: 'b.pdf' })).toEqual(first);
    expect(await upload({ base64: bytes.toString('base64url'), filename: 'c.pdf' })).toEqual(first);
    expect(world.mediaRows()).toBe(1);
  });

  describe('rejects, keeping nothing', () => {
    it('base64 without filename → the filename message', async () => {
      await expectErrors(upload({ base64: pngBytes().toString('base64') }), {
        filename: ['The filename field is required when base64 is present.'],
      });
      await expectNothingKept(world);
    });

    it.each([
      ['characters outside the alphabet', 'iVBOR!w0KGgo'],
      ['padding in the middle', 'iVBORw0KGgo=AAAA'],
      ['a data: URL instead of base64', `data:image/png;base64,${pngBytes().toString('base64')}`],
      ['too much padding', '===='],
    ])('invalid base64 (%s) → the base64 message', async (_label, base64) => {
      await expectErrors(upload({ base64, filename: 'a.png' }), {
        base64: ['The base64 must be valid base64.'],
      });
      await expectNothingKept(world);
    });

    it.each([
      ['empty', ''],
      ['only whitespace', ' \r\n\t '],
    ])('%s base64 → the media field is required', async (_label, base64) => {
      await expectErrors(upload({ base64, filename: 'a.png' }), { media: [REQUIRED_MESSAGE] });
      await expectNothingKept(world);
    });

    it('a filename alone is no source → the media field is required', async () => {
      await expectErrors(upload({ filename: 'a.png' }), { media: [REQUIRED_MESSAGE] });
    });

    it('text bytes named photo.PNG → the type message', async () => {
      await expectErrors(upload({ base64: textBytes().toString('base64'), filename: 'photo.PNG' }), {
        media: [TYPE_MESSAGE],
      });
      await expectNothingKept(world);
    });

    it('decoding to 104,857,601 bytes → too large', async () => {
      await expectErrors(
        upload({ base64: base64OfSize(pngBytes(), MEDIA_LIMIT_BYTES + 1), filename: 'big.png' }),
        {
          media: [TOO_LARGE_MESSAGE],
        },
      );
      await expectNothingKept(world);
    });
  });

  it('accepts base64 decoding to exactly 104,857,600 bytes', async () => {
    const media = await upload({
      base64: base64OfSize(pngBytes(), MEDIA_LIMIT_BYTES),
      filename: 'limit.png',
    });
    expect(media).toMatchObject({ type: 'image/png', size: MEDIA_LIMIT_BYTES });
    expect(world.stagingEntries()).toEqual([]);
  });

  it('is the same media as the same bytes given by path', async () => {
    const files = new MediaFiles();
    try {
      const bytes = pngBytes(88);
      const viaBase64 = await upload({ base64: bytes.toString('base64'), filename: 'x.png' });
      expect(await upload({ path: files.write('x.png', bytes) })).toEqual(viaBase64);
      expect(world.mediaRows()).toBe(1);
    } finally {
      files.remove();
    }
  });
});
