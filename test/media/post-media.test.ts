/**
 * media[] of a post: a url must be an absolute http(s) URL; an id must be a media uploaded to the same
 * brand. Checked on create_post and update_post, with the interface's keys and sentences.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pngBytes } from '../contract/media-files.js';
import { BRAND, expectErrors, postRequest } from '../contract/support.js';
import { type MediaWorld, openMediaWorld } from './support.js';

let world: MediaWorld;
beforeEach(async () => {
  world = await openMediaWorld();
});
afterEach(() => world.close());

const uploadTo = (brandId: number, shade: number) =>
  world.service.uploadMedia({ brandId, base64: pngBytes(shade).toString('base64'), filename: 'p.png' });

describe('media[].url of a post', () => {
  it.each([
    'ftp://x',
    'ftp://cdn.example.com/a.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:image/png;base64,AAAA',
    '/images/a.png',
    'cdn.example.com/a.png',
    'https://',
    'not a url',
  ])('refuses %s with the format message on media.0.url', async (url) => {
    await expectErrors(world.service.createPost(postRequest({ media: [{ url }] })), {
      'media.0.url': ['The media.0.url format is invalid.'],
    });
  });

  it('names the element that is wrong, and reports every wrong element', async () => {
    await expectErrors(
      world.service.createPost(
        postRequest({ media: [{ url: 'https://cdn.example.com/a.png' }, { url: 'ftp://x' }, { url: 'x' }] }),
      ),
      {
        'media.1.url': ['The media.1.url format is invalid.'],
        'media.2.url': ['The media.2.url format is invalid.'],
      },
    );
  });

  it('accepts absolute http and https URLs (they are not fetched at creation)', async () => {
    const created = await world.service.createPost(
      postRequest({
        media: [{ url: 'https://cdn.example.com/a.png' }, { url: 'http://cdn.example.com/b.JPG?x=1' }],
      }),
    );
    expect(Number.isInteger(created.id)).toBe(true);
  });

  it('refuses an element with both id and url, or neither', async () => {
    const media = await uploadTo(BRAND.northwind, 1);
    await expectErrors(
      world.service.createPost(
        postRequest({ media: [{ id: media.id, url: 'https://cdn.example.com/a.png' }, {}] }),
      ),
      {
        'media.0': ['The media.0 must have either an id or a url, not both.'],
        'media.1': ['The media.1 must have either an id or a url, not both.'],
      },
    );
  });
});

describe('media[].id of a post', () => {
  it('accepts a media of the same brand', async () => {
    const media = await uploadTo(BRAND.northwind, 2);
    const created = await world.service.createPost(postRequest({ media: [{ id: media.id }] }));
    expect(Number.isInteger(created.id)).toBe(true);
  });

  it('refuses a media of another brand of the same user, and an unknown id', async () => {
    const kite = await uploadTo(BRAND.kite, 3);
    const northwind = await uploadTo(BRAND.northwind, 4);
    await expectErrors(
      world.service.createPost(
        postRequest({ media: [{ id: northwind.id }, { id: kite.id }, { id: 'med_doesnotexist0000000000' }] }),
      ),
      {
        'media.1.id': ['The selected media.1.id is invalid.'],
        'media.2.id': ['The selected media.2.id is invalid.'],
      },
    );
  });

  it('gives the same bytes a different media in each brand: only its own brand’s id is valid', async () => {
    const inKite = await uploadTo(BRAND.kite, 5);
    const inNorthwind = await uploadTo(BRAND.northwind, 5);
    expect(inKite.id).not.toBe(inNorthwind.id);
    await expectErrors(world.service.createPost(postRequest({ media: [{ id: inKite.id }] })), {
      'media.0.id': ['The selected media.0.id is invalid.'],
    });
    await world.service.createPost(postRequest({ media: [{ id: inNorthwind.id }] }));
  });

  it('is checked the same way when a post is updated', async () => {
    const kite = await uploadTo(BRAND.kite, 6);
    const created = await world.service.createPost(postRequest());
    await expectErrors(
      world.service.updatePost({ brandId: BRAND.northwind, postId: created.id, media: [{ id: kite.id }] }),
      { 'media.0.id': ['The selected media.0.id is invalid.'] },
    );
    await expectErrors(
      world.service.updatePost({ brandId: BRAND.northwind, postId: created.id, media: [{ url: 'ftp://x' }] }),
      { 'media.0.url': ['The media.0.url format is invalid.'] },
    );
  });
});
