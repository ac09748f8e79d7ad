/** POST /v1/brands/{brandId}/media: the accepted types, the spec's 422s, nothing kept from a rejection. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jpegBytes, movBytes, mp4Bytes, pdfBytes, pngBytes, textBytes } from '../contract/media-files.js';
import {
  expectExact,
  invalidBody,
  multipart,
  openRestWorld,
  type RestWorld,
  readJson,
  upload,
} from './support.js';

let world: RestWorld;
beforeEach(async () => {
  world = await openRestWorld();
});
afterEach(async () => {
  expect(world.logged).toEqual([]);
  expect(world.stagingEntries()).toEqual([]);
  await world.close();
});

const REQUIRED = invalidBody({ media: ['The media field is required.'] });
const WRONG_TYPE = invalidBody({
  media: ['The media must be a file of type: png, jpg, jpeg, mp4, mov, pdf.'],
});

/** Files committed for a brand (not counting staging). */
function storedFiles(brandId: number): string[] {
  try {
    return readdirSync(join(world.rt.dataDir, 'media', String(brandId)));
  } catch {
    return [];
  }
}

describe('201 Created', () => {
  const accepted: Array<[string, Buffer, string]> = [
    ['photo.png', pngBytes(1), 'image/png'],
    ['photo.jpg', jpegBytes(), 'image/jpeg'],
    ['photo.jpeg', Buffer.concat([jpegBytes(), Buffer.from([0])]), 'image/jpeg'],
    ['clip.mp4', mp4Bytes(), 'video/mp4'],
    ['clip.mov', movBytes(), 'video/quicktime'],
    ['deck.pdf', pdfBytes(), 'application/pdf'],
  ];
  for (const [name, bytes, type] of accepted) {
    it(`accepts ${name} as ${type} and answers {id, type, size}`, async () => {
      const { status, body } = await readJson(await upload(world, 1, { name, bytes }));
      expect(status).toBe(201);
      expect(body).toEqual({ status: 'success', data: { id: expect.any(String), type, size: bytes.length } });
      expect(Object.keys(body.data)).toEqual(['id', 'type', 'size']);
      expect(body.data.id.length).toBeGreaterThanOrEqual(16);
      expect(storedFiles(1)).toEqual([body.data.id]);
    });
  }

  it('reads the type from the bytes: an upper-case .JPG name and a misleading name are fine', async () => {
    const upper = await readJson(await upload(world, 1, { name: 'HOLIDAY.JPG', bytes: jpegBytes() }));
    expect(upper.status).toBe(201);
    expect(upper.body.data.type).toBe('image/jpeg');
    const misnamed = await readJson(await upload(world, 1, { name: 'really-a-pdf.png', bytes: pdfBytes() }));
    expect(misnamed.status).toBe(201);
    expect(misnamed.body.data.type).toBe('application/pdf');
  });

  it('answers the same file twice with the same id, and keeps one copy', async () => {
    const first = await readJson(await upload(world, 1, { name: 'a.png', bytes: pngBytes(9) }));
    const second = await readJson(await upload(world, 1, { name: 'renamed.png', bytes: pngBytes(9) }));
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.data).toEqual(first.body.data);
    const other = await readJson(await upload(world, 1, { name: 'a.png', bytes: pngBytes(10) }));
    expect(other.body.data.id).not.toBe(first.body.data.id);
    expect(storedFiles(1).sort()).toEqual([first.body.data.id, other.body.data.id].sort());
  });

  it('gives another brand its own id for the same bytes', async () => {
    const one = await readJson(await upload(world, 1, { name: 'a.png', bytes: pngBytes(4) }));
    const two = await readJson(await upload(world, 2, { name: 'a.png', bytes: pngBytes(4) }));
    expect(two.status).toBe(201);
    expect(two.body.data.id).not.toBe(one.body.data.id);
  });

  it('returns an id that a post of the brand can reference', async () => {
    const media = await readJson(await upload(world, 1, { name: 'a.png', bytes: pngBytes(5) }));
    const created = await world.request('POST', '/v1/brands/1/collections/2/posts', {
      json: { publishMode: 'DRAFT', caption: 'With a picture', media: [{ id: media.body.data.id }] },
    });
    expect(created.status).toBe(201);
    // In brand 2 the same id is unknown.
    const elsewhere = await world.request('POST', '/v1/brands/2/collections/5/posts', {
      json: { publishMode: 'DRAFT', caption: 'Borrowed', media: [{ id: media.body.data.id }] },
    });
    await expectExact(elsewhere, 422, invalidBody({ 'media.0.id': ['The selected media.0.id is invalid.'] }));
  });
});

describe('422', () => {
  it('refuses bytes of another type under a .png name', async () => {
    await expectExact(await upload(world, 1, { name: 'notes.png', bytes: textBytes() }), 422, WRONG_TYPE);
    // GIF is an image, but not an accepted one.
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    await expectExact(await upload(world, 1, { name: 'anim.png', bytes: gif }), 422, WRONG_TYPE);
    expect(storedFiles(1)).toEqual([]);
  });

  it('answers an empty file as a missing one', async () => {
    await expectExact(await upload(world, 1, { name: 'empty.png', bytes: new Uint8Array(0) }), 422, REQUIRED);
  });

  it('answers a multipart body without any part as a missing file', async () => {
    const { body, contentType } = multipart([]);
    const response = await world.request('POST', '/v1/brands/1/media', {
      body: new Uint8Array(body),
      headers: { 'content-type': contentType },
    });
    await expectExact(response, 422, REQUIRED);
  });

  it('answers a request that is not multipart, or has no body, as a missing file', async () => {
    await expectExact(
      await world.request('POST', '/v1/brands/1/media', { json: { media: 'x' } }),
      422,
      REQUIRED,
    );
    await expectExact(await world.request('POST', '/v1/brands/1/media'), 422, REQUIRED);
  });

  it('answers a malformed multipart body as a missing file', async () => {
    const response = await world.request('POST', '/v1/brands/1/media', {
      body: 'this is not multipart at all',
      headers: { 'content-type': 'multipart/form-data; boundary=nothing-matches' },
    });
    await expectExact(response, 422, REQUIRED);
    const noBoundary = await world.request('POST', '/v1/brands/1/media', {
      body: 'x',
      headers: { 'content-type': 'multipart/form-data' },
    });
    await expectExact(noBoundary, 422, REQUIRED);
  });

  it('answers a file under another field name as a missing media field, and names the field not allowed', async () => {
    const { status, body } = await readJson(
      await upload(world, 1, { name: 'a.png', bytes: pngBytes(2), field: 'file' }),
    );
    expect(status).toBe(422);
    expect(body).toEqual({
      status: 'error',
      message: 'The given data was invalid.',
      errors: {
        media: ['The media field is required.'],
        file: ['The file field is not allowed.'],
      },
    });
    expect(storedFiles(1)).toEqual([]);
  });

  it('refuses a text field beside the file', async () => {
    const { body, contentType } = multipart([
      { field: 'caption', bytes: 'hello' },
      { field: 'media', filename: 'a.png', bytes: pngBytes(6) },
    ]);
    const response = await world.request('POST', '/v1/brands/1/media', {
      body: new Uint8Array(body),
      headers: { 'content-type': contentType },
    });
    const { status, body: answer } = await readJson(response);
    // One file per upload and nothing else: the extra field must not pass silently.
    expect(status).toBe(422);
    expect(answer.errors.caption).toEqual(['The caption field is not allowed.']);
    expect(storedFiles(1)).toEqual([]);
  });

  it('keeps one file per upload: a second media part is refused', async () => {
    const { body, contentType } = multipart([
      { field: 'media', filename: 'a.png', bytes: pngBytes(20) },
      { field: 'media', filename: 'b.png', bytes: pngBytes(21) },
    ]);
    const response = await world.request('POST', '/v1/brands/1/media', {
      body: new Uint8Array(body),
      headers: { 'content-type': contentType },
    });
    const { status } = await readJson(response);
    expect(status).toBe(422);
    expect(storedFiles(1)).toEqual([]);
  });

  it('checks the brand before the file: 404 for a brand that does not exist', async () => {
    const response = await upload(world, 999, { name: 'a.png', bytes: pngBytes(8) });
    await expectExact(
      response,
      404,
      JSON.stringify({ status: 'error', message: 'Brand not found.', errors: { brand: 'Brand not found.' } }),
    );
  });
});

describe('parts without a name', () => {
  it('ignores them and answers that the media field is required, without crashing', async () => {
    const world = await openRestWorld();
    try {
      const boundary = 'noNameBoundary';
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        Buffer.from('abc'),
        Buffer.from(
          `\r\n--${boundary}\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n--${boundary}--\r\n`,
        ),
      ]);
      const response = await world.request('POST', '/v1/brands/1/media', {
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(response.status).toBe(422);
      expect(await response.text()).toBe(
        JSON.stringify({
          status: 'error',
          message: 'The given data was invalid.',
          errors: { media: ['The media field is required.'] },
        }),
      );
      expect(world.logged).toEqual([]);
    } finally {
      await world.close();
    }
  });
});

describe('a body that ends inside a file part', () => {
  it.each(['other', 'media'])(
    'answers 422 for a truncated %s file part, and nothing is thrown at the process',
    async (field) => {
      const world = await openRestWorld();
      try {
        const boundary = 'cutShortBoundary';
        // No closing boundary: busboy ends the form with "Unexpected end of form" and destroys the open
        // file stream with it, which must have a listener whatever the part's name.
        const body = Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          Buffer.from(pngBytes()),
        ]);
        const response = await world.request('POST', '/v1/brands/1/media', {
          body,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        });
        expect(response.status).toBe(422);
        expect(await response.json()).toEqual({
          status: 'error',
          message: 'The given data was invalid.',
          errors: { media: ['The media field is required.'] },
        });
        // Give an error thrown at the process a turn to surface (vitest fails the run on one).
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        await world.close();
      }
    },
  );
});

describe('a part busboy cannot parse before a good file', () => {
  it('answers 422 and stages nothing, though busboy hands the next file over after its error', async () => {
    const world = await openRestWorld();
    try {
      // Found by the REST fuzz: a NUL in the first part's file name makes busboy fail the form, and it
      // still emits the second part as a file afterwards.
      const boundary = 'nulBoundary';
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="nul\0.png"\r\n\r\n\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="a.png"\r\n\r\n`,
        ),
        Buffer.from(pngBytes()),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const response = await world.request('POST', '/v1/brands/1/media', {
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        status: 'error',
        message: 'The given data was invalid.',
        errors: { media: ['The media field is required.'] },
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(world.stagingEntries()).toEqual([]);
    } finally {
      await world.close();
    }
  });
});
