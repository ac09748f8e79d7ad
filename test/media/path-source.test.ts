/**
 * upload_media with `path`: real files on disk, type from the bytes whatever the name says, the three
 * messages of the interface, 422 on path for what is not a file, exactly one source, and nothing kept
 * from any rejection.
 */
import { statSync } from 'node:fs';
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
import { BRAND, expectErrors, expectValidation } from '../contract/support.js';
import {
  expectNothingKept,
  type MediaWorld,
  openMediaWorld,
  REQUIRED_MESSAGE,
  TOO_LARGE_MESSAGE,
  TYPE_MESSAGE,
} from './support.js';

const LOCAL_PATH_REFUSED =
  'A path cannot be read here: this server does not run on your machine. Send the file as url or base64 (with filename) instead.';

let world: MediaWorld;
let files: MediaFiles;
beforeEach(async () => {
  world = await openMediaWorld();
  files = new MediaFiles();
});
afterEach(async () => {
  files.remove();
  await world.close();
});

const upload = (path: string) => world.service.uploadMedia({ brandId: BRAND.northwind, path });

describe('upload_media from a path', () => {
  it.each([
    ['photo.png', pngBytes, 'image/png'],
    ['photo.jpg', jpegBytes, 'image/jpeg'],
    ['photo.jpeg', jpegBytes, 'image/jpeg'],
    ['clip.mp4', mp4Bytes, 'video/mp4'],
    ['clip.mov', movBytes, 'video/quicktime'],
    ['deck.pdf', pdfBytes, 'application/pdf'],
  ])('stores %s as %s, with its size, and keeps the file under the brand', async (name, bytes, type) => {
    const path = files.write(name, bytes());
    const media = await upload(path);
    expect(media).toEqual({ id: expect.stringMatching(/^\S{16,}$/), type, size: statSync(path).size });
    expect(world.mediaRows()).toBe(1);
    expect(world.storedFiles()).toEqual([`${BRAND.northwind}/${media.id}`]);
    expect(world.stagingEntries()).toEqual([]);
  });

  it.each([
    ['PHOTO.JPG', jpegBytes, 'image/jpeg'],
    ['Shop Front.PNG', pngBytes, 'image/png'],
    ['CLIP.MOV', movBytes, 'video/quicktime'],
    ['Deck.Pdf', pdfBytes, 'application/pdf'],
  ])('accepts right bytes under an upper- or mixed-case extension: %s', async (name, bytes, type) => {
    expect((await upload(files.write(name, bytes()))).type).toBe(type);
  });

  it('decides the type from the bytes: JPEG bytes named .png are image/jpeg', async () => {
    expect((await upload(files.write('photo.png', jpegBytes()))).type).toBe('image/jpeg');
  });

  describe('rejects, keeping nothing', () => {
    it.each([
      ['text bytes with a .png extension', 'fake.png', textBytes()],
      ['text bytes with a .JPG extension', 'FAKE.JPG', textBytes()],
      [
        'GIF bytes with a .png extension',
        'anim.png',
        Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
      ],
      ['zeros with a .mp4 extension', 'clip.mp4', Buffer.alloc(4096)],
    ])('wrong magic bytes with a right extension (%s) → the type message', async (_label, name, bytes) => {
      await expectErrors(upload(files.write(name, bytes)), { media: [TYPE_MESSAGE] });
      await expectNothingKept(world);
    });

    it('an empty file → the media field is required', async () => {
      await expectErrors(upload(files.write('empty.png', Buffer.alloc(0))), { media: [REQUIRED_MESSAGE] });
      await expectNothingKept(world);
    });

    it('a file of 104,857,601 bytes (one over 100 MB) → too large', async () => {
      const path = files.sized('huge.png', pngBytes(), MEDIA_LIMIT_BYTES + 1);
      expect(statSync(path).size).toBe(104_857_601);
      await expectErrors(upload(path), { media: [TOO_LARGE_MESSAGE] });
      await expectNothingKept(world);
    });

    it('a path that does not exist → 422 on path naming the file', async () => {
      const missing = files.path('missing.png');
      await expectErrors(upload(missing), { path: [`The file ${missing} does not exist.`] });
      await expectNothingKept(world);
    });

    it('a path below a file (not a directory) → 422 on path', async () => {
      const below = `${files.write('photo.png', pngBytes())}/inside.png`;
      await expectErrors(upload(below), { path: [`The file ${below} does not exist.`] });
      await expectNothingKept(world);
    });

    it('a directory → 422 on path saying it is a directory', async () => {
      const dir = files.directory('photos.png');
      await expectErrors(upload(dir), { path: [`The path ${dir} is a directory, not a file.`] });
      await expectNothingKept(world);
    });

    it('a relative path → 422 on path', async () => {
      const errors = await expectValidation(upload('photos/photo.png'));
      expect(Object.keys(errors)).toEqual(['path']);
      expect(errors.path![0]).toMatch(/absolute/);
      await expectNothingKept(world);
    });
  });

  it('accepts exactly 104,857,600 bytes', async () => {
    const media = await upload(files.sized('limit.pdf', pdfBytes(), MEDIA_LIMIT_BYTES));
    expect(media).toMatchObject({ type: 'application/pdf', size: MEDIA_LIMIT_BYTES });
    expect(world.stagingEntries()).toEqual([]);
  });

  it('stores the same bytes once per brand, under any name, and returns the same id', async () => {
    const first = await upload(files.write('a.png', pngBytes(9)));
    const again = await upload(files.write('copy of a.PNG', pngBytes(9)));
    const other = await upload(files.write('b.png', pngBytes(10)));
    expect(again).toEqual(first);
    expect(other.id).not.toBe(first.id);
    expect(world.mediaRows()).toBe(2);
    expect(world.storedFiles()).toHaveLength(2);
    expect(world.stagingEntries()).toEqual([]);
  });
});

describe('exactly one source', () => {
  it('none → the media field is required', async () => {
    await expectErrors(world.service.uploadMedia({ brandId: BRAND.northwind }), {
      media: [REQUIRED_MESSAGE],
    });
  });

  it('two or three → "Give exactly one", naming them, and nothing is read or downloaded', async () => {
    const path = files.write('photo.png', pngBytes());
    const base64 = pngBytes().toString('base64');
    await expectErrors(
      world.service.uploadMedia({ brandId: BRAND.northwind, path, url: 'http://127.0.0.1:9/a.png' }),
      { media: ['Give exactly one of path, url or base64, not path and url.'] },
    );
    await expectErrors(
      world.service.uploadMedia({
        brandId: BRAND.northwind,
        path,
        url: 'http://127.0.0.1:9/a.png',
        base64,
        filename: 'a.png',
      }),
      { media: ['Give exactly one of path, url or base64, not path and url and base64.'] },
    );
    await expectNothingKept(world);
  });
});

describe('a path where the server is not on the caller’s machine (HTTP sessions)', () => {
  it('is refused with a clear error on path, even for a readable file, and keeps nothing', async () => {
    const remote = world.serviceWith({ allowLocalPaths: false });
    const path = files.write('photo.png', pngBytes());
    await expectErrors(remote.uploadMedia({ brandId: BRAND.northwind, path }), {
      path: [LOCAL_PATH_REFUSED],
    });
    await expectNothingKept(world);
    // The other sources still work there.
    const media = await remote.uploadMedia({
      brandId: BRAND.northwind,
      base64: pngBytes().toString('base64'),
      filename: 'photo.png',
    });
    expect(media.type).toBe('image/png');
  });
});
