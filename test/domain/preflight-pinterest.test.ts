/**
 * Pre-flight of a Pinterest board at each of its limits (API v5's PinCreate: title 100, description
 * 800, alt_text 500, link 2,048; 2 to 5 images; JPEG or PNG images up to 20 MB, MP4 or MOV videos up
 * to 2 GB), exactly at it and one past it, with the limits the connector gives a connected board
 * (capabilitiesOfPinterest) and those a stand-in channel has; and the auto-comment told as skipped.
 */
import { describe, expect, it } from 'vitest';
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import { type MediaFacts, type PreflightChannel, preflightChannel } from '../../src/domain/preflight.js';
import { capabilitiesOfPinterest } from '../../src/publish/connectors/pinterest/pinterest-account.js';

const MB = 1024 * 1024;
const MEDIA: MediaFacts = new Map([
  ...['i1', 'i2', 'i3', 'i4', 'i5', 'i6'].map((id) => [id, { type: 'image/png', size: 1000 }] as const),
  ['big', { type: 'image/jpeg', size: 20 * MB + 1 }],
  ['gif', { type: 'image/gif', size: 1000 }],
  ['video', { type: 'video/mp4', size: 2048 * MB }],
  ['huge', { type: 'video/quicktime', size: 2048 * MB + 1 }],
]);
const one = [{ id: 'i1' }];
const a = (count: number) => 'a'.repeat(count);
const post = (extra: Partial<PostPayload>): PostPayload => ({
  publishMode: 'IMMEDIATE',
  media: one,
  ...extra,
});

function board(connector: string, capabilities: Capabilities): PreflightChannel {
  return {
    id: 7,
    name: 'Northwind on Pinterest',
    type: 'Pinterest',
    status: 'ACTIVE',
    connector,
    capabilities,
  };
}
const connected = board('pinterest', capabilitiesOfPinterest());

const warnings = (payload: PostPayload, to = connected, outcome = 'fail') =>
  preflightChannel(payload, to, MEDIA)
    .filter((warning) => warning.outcome === outcome)
    .map((warning) => warning.message);

function expectBoundary(atLimit: PostPayload, over: PostPayload, message: string) {
  expect(warnings(atLimit), 'at the limit').toEqual([]);
  expect(warnings(over), 'one past the limit').toEqual([message]);
}

describe('Pinterest pre-flight', () => {
  it('the description (the caption alone: the link is sent apart): 800', () => {
    expectBoundary(
      post({ caption: a(800), link: 'https://northwind.example/beans' }),
      post({ caption: a(801) }),
      'The text is 801 characters; Pinterest takes at most 800. Shorten the caption, or give Pinterest its own with platforms.pinterest.caption.',
    );
  });

  it('the title: 100', () => {
    expectBoundary(
      post({ title: a(100) }),
      post({ title: `${a(99)}😀😀` }),
      'The title is 101 characters; Pinterest takes at most 100: shorten it.',
    );
  });

  it('the alt text: 500', () => {
    expectBoundary(
      post({ alt: a(500) }),
      post({ alt: a(501) }),
      'The alt text is 501 characters; Pinterest takes at most 500: shorten it.',
    );
  });

  it('the link: 2,048', () => {
    const link = (length: number) => `https://n.example/${a(length - 18)}`;
    expectBoundary(
      post({ link: link(2048) }),
      post({ link: link(2049) }),
      'The link is 2049 characters; Pinterest takes at most 2048: shorten it.',
    );
  });

  it('media: required, at most 5, JPEG or PNG images up to 20 MB, videos up to 2 GB', () => {
    expect(warnings(post({ caption: 'No picture', media: [] }))).toEqual([
      'Pinterest publishes nothing without media: add an image or a video, or leave this channel out.',
    ]);
    expectBoundary(
      post({ media: ['i1', 'i2', 'i3', 'i4', 'i5'].map((id) => ({ id })) }),
      post({ media: ['i1', 'i2', 'i3', 'i4', 'i5', 'i6'].map((id) => ({ id })) }),
      'The post has 6 media; Pinterest takes at most 5 in one post.',
    );
    expect(warnings(post({ media: [{ id: 'big' }] }))).toEqual([
      'media.0 is 20,971,521 bytes; Pinterest takes images up to 20 MB.',
    ]);
    expect(warnings(post({ media: [{ id: 'gif' }] }))[0]).toMatch(
      /^Pinterest does not take image\/gif \(media\.0\)/,
    );
    expectBoundary(
      post({ media: [{ id: 'video' }] }),
      post({ media: [{ id: 'huge' }] }),
      'media.0 is 2,147,483,649 bytes; Pinterest takes videos up to 2048 MB.',
    );
  });

  it('the auto-comment: told as skipped, on a connected board and a stand-in alike', () => {
    const withComment = post({ comment: { comment: 'Recipe in bio', delay: 60 } });
    const said = 'Pinterest has no comments: the auto-comment is not posted there.';
    expect(warnings(withComment, connected, 'change')).toEqual([said]);
    expect(warnings(withComment, board('sandbox', PLATFORM_CAPABILITIES.Pinterest), 'change')).toEqual([
      said,
    ]);
    expect(warnings(post({}), connected, 'change')).toEqual([]);
  });

  it('a stand-in board says what Pinterest would refuse', () => {
    expect(warnings(post({ title: a(101) }), board('sandbox', PLATFORM_CAPABILITIES.Pinterest))).toEqual([
      'The title is 101 characters; Pinterest takes at most 100: shorten it. (Pinterest would refuse it; this channel publishes to the sandbox, which takes it anyway.)',
    ]);
  });
});
