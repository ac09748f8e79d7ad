/** uploadMedia: type from the bytes, the 100 MB limit, the path argument, brand access, nothing kept. */
import { statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
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
} from './media-files.js';
import { BRAND, expectBrandNotFound, expectErrors, expectValidation, postRequest } from './support.js';
import type { ContractContext } from './world.js';

const TYPE_MESSAGE = 'The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf.';
const REQUIRED_MESSAGE = 'The media field is required.';
const TOO_LARGE_MESSAGE = 'The media file may not be greater than 100 megabytes.';

export function uploadMediaContract(ctx: ContractContext): void {
  describe('uploadMedia', () => {
    let files: MediaFiles;
    beforeEach(() => {
      files = new MediaFiles();
    });
    afterEach(() => {
      files.remove();
    });

    const upload = (path: string, brandId: number = BRAND.northwind) =>
      ctx.service.uploadMedia({ brandId, path });

    it.each([
      ['photo.png', pngBytes, 'image/png'],
      ['photo.jpg', jpegBytes, 'image/jpeg'],
      ['photo.jpeg', jpegBytes, 'image/jpeg'],
      ['clip.mp4', mp4Bytes, 'video/mp4'],
      ['clip.mov', movBytes, 'video/quicktime'],
      ['deck.pdf', pdfBytes, 'application/pdf'],
    ])('accepts %s as %s with its size', async (name, bytes, type) => {
      const path = files.write(name, bytes());
      const media = await upload(path);
      expect(Object.keys(media).sort()).toEqual(['id', 'size', 'type']);
      expect(media.type).toBe(type);
      expect(media.size).toBe(statSync(path).size);
      expect(typeof media.id).toBe('string');
      // Opaque and unguessable: not a counter, long enough to carry real randomness.
      expect(media.id).not.toMatch(/^\d+$/);
      expect(media.id.length).toBeGreaterThanOrEqual(16);
    });

    it('accepts an upper-case extension (.JPG)', async () => {
      const media = await upload(files.write('PHOTO.JPG', jpegBytes()));
      expect(media.type).toBe('image/jpeg');
    });

    it('reads the type from the bytes, not the name: PNG bytes named .txt are image/png', async () => {
      const media = await upload(files.write('notes.txt', pngBytes()));
      expect(media.type).toBe('image/png');
    });

    it('reads the type from the bytes, not the name: PDF bytes named .png are application/pdf', async () => {
      const media = await upload(files.write('fake.png', pdfBytes()));
      expect(media.type).toBe('application/pdf');
    });

    it('rejects text bytes named .png with the type message on media', async () => {
      await expectErrors(upload(files.write('fake.png', textBytes())), { media: [TYPE_MESSAGE] });
    });

    it('rejects a file of a type that is not accepted (GIF)', async () => {
      const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
      await expectErrors(upload(files.write('anim.gif', gif)), { media: [TYPE_MESSAGE] });
    });

    it('treats an empty file as missing media', async () => {
      await expectErrors(upload(files.write('empty.png', Buffer.alloc(0))), { media: [REQUIRED_MESSAGE] });
    });

    it('rejects a file of 104,857,601 bytes as too large', async () => {
      const path = files.sized('huge.png', pngBytes(), MEDIA_LIMIT_BYTES + 1);
      await expectErrors(upload(path), { media: [TOO_LARGE_MESSAGE] });
    });

    it('accepts a file of exactly 104,857,600 bytes', async () => {
      const path = files.sized('limit.pdf', pdfBytes(), MEDIA_LIMIT_BYTES);
      const media = await upload(path);
      expect(media).toMatchObject({ type: 'application/pdf', size: MEDIA_LIMIT_BYTES });
    });

    it('returns the same media for the same file uploaded twice', async () => {
      const path = files.write('photo.png', pngBytes(7));
      const first = await upload(path);
      const second = await upload(path);
      expect(second).toEqual(first);
    });

    it('gives different files different ids', async () => {
      const a = await upload(files.write('a.png', pngBytes(1)));
      const b = await upload(files.write('b.png', pngBytes(2)));
      expect(a.id).not.toBe(b.id);
    });

    it('keeps media per brand: the same file in another brand is another media', async () => {
      const path = files.write('photo.png', pngBytes(3));
      const northwind = await upload(path, BRAND.northwind);
      const kite = await upload(path, BRAND.kite);
      expect(kite.id).not.toBe(northwind.id);
      expect(kite).toMatchObject({ type: 'image/png', size: northwind.size });
    });

    it('gives an id that a post of the same brand can reference', async () => {
      const media = await upload(files.write('photo.png', pngBytes(4)));
      const created = await ctx.service.createPost(postRequest({ media: [{ id: media.id }] }));
      expect(Number.isInteger(created.id)).toBe(true);
    });

    it('answers 422 on path for a file that does not exist', async () => {
      const errors = await expectValidation(upload(files.path('missing.png')));
      expect(Object.keys(errors)).toEqual(['path']);
      expect(errors.path).toHaveLength(1);
    });

    it('answers 422 on path for a directory', async () => {
      const errors = await expectValidation(upload(files.directory('folder')));
      expect(Object.keys(errors)).toEqual(['path']);
    });

    it('answers 422 on path for a relative path, even one that names an existing file', async () => {
      const relativePath = relative(process.cwd(), files.write('photo.png', pngBytes()));
      expect(isAbsolute(relativePath)).toBe(false);
      const errors = await expectValidation(upload(relativePath));
      expect(Object.keys(errors)).toEqual(['path']);
    });

    it('requires one source and the brand id, and allows no other field', async () => {
      await expectErrors(ctx.service.uploadMedia({ brandId: BRAND.northwind }), {
        media: ['The media field is required.'],
      });
      await expectErrors(
        ctx.service.uploadMedia({
          brandId: BRAND.northwind,
          path: files.write('two.png', pngBytes()),
          base64: 'AAAA',
        }),
        { media: ['Give exactly one of path, url or base64, not path and base64.'] },
      );
      await expectErrors(ctx.service.uploadMedia({ path: files.write('p.png', pngBytes()) }), {
        brandId: ['The brand id field is required.'],
      });
      await expectErrors(ctx.service.uploadMedia({ brandId: 1, path: files.path('p.png'), name: 'x' }), {
        name: ['The name field is not allowed.'],
      });
    });

    it('answers 404 Brand not found for a missing brand and for a brand of another user', async () => {
      const path = files.write('photo.png', pngBytes());
      await expectBrandNotFound(upload(path, 999));
      const [harbor] = (await ctx.other.listBrands()).data;
      await expectBrandNotFound(upload(path, harbor!.id));
      await expectBrandNotFound(ctx.other.uploadMedia({ brandId: BRAND.northwind, path }));
      const theirs = await ctx.other.uploadMedia({ brandId: harbor!.id, path });
      expect(theirs.type).toBe('image/png');
    });

    if (ctx.options.inspection) {
      describe('keeps nothing from a rejected upload', () => {
        const rejected: Array<[string, (files: MediaFiles) => string]> = [
          ['text bytes named .png', (f) => f.write('fake.png', textBytes())],
          ['an empty file', (f) => f.write('empty.jpg', Buffer.alloc(0))],
          ['a file over 100 MB', (f) => f.sized('huge.pdf', pdfBytes(), MEDIA_LIMIT_BYTES + 1)],
          ['a missing file', (f) => f.path('nothing.png')],
          ['a directory', (f) => f.directory('dir')],
          ['a relative path', (f) => relative(process.cwd(), f.write('rel.png', pngBytes(5)))],
        ];
        it.each(rejected)('%s', async (_label, make) => {
          const inspect = ctx.inspect();
          await expectValidation(upload(make(files)));
          expect(inspect.stagingEntries()).toEqual([]);
          expect(await inspect.count('media')).toBe(0);
        });

        it('stores an accepted upload once and leaves staging empty', async () => {
          const inspect = ctx.inspect();
          const path = files.write('photo.png', pngBytes(9));
          await upload(path);
          await upload(path);
          expect(await inspect.count('media')).toBe(1);
          expect(inspect.stagingEntries()).toEqual([]);
        });
      });
    }
  });
}
