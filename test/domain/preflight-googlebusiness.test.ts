/**
 * Pre-flight of a Business Profile location at its limits (a local post's summary of 1,500
 * characters; one photo, JPEG or PNG up to 5 MB; no video), exactly at each and one past it, with the
 * limits the connector gives a connected location (capabilitiesOfGoogleBusiness); and the auto-comment
 * told as not posted, on a connected location and a stand-in alike.
 */
import { describe, expect, it } from 'vitest';
import { PLATFORM_CAPABILITIES } from '../../src/domain/capabilities.js';
import type { PostPayload } from '../../src/domain/post-schemas.js';
import { type MediaFacts, type PreflightChannel, preflightChannel } from '../../src/domain/preflight.js';
import { capabilitiesOfGoogleBusiness } from '../../src/publish/connectors/googlebusiness/business-account.js';

const MB = 1024 * 1024;
const MEDIA: MediaFacts = new Map([
  ['photo', { type: 'image/jpeg', size: 5 * MB }],
  ['heavy', { type: 'image/png', size: 5 * MB + 1 }],
  ['second', { type: 'image/png', size: 1000 }],
  ['clip', { type: 'video/mp4', size: 1000 }],
]);
const post = (extra: Partial<PostPayload>): PostPayload => ({
  publishMode: 'IMMEDIATE',
  caption: 'Open late',
  ...extra,
});
const location = (connector: string, capabilities = capabilitiesOfGoogleBusiness()): PreflightChannel => ({
  id: 3,
  name: 'Northwind on Google',
  type: 'Google Business',
  status: 'ACTIVE',
  connector,
  capabilities,
});
const said = (payload: PostPayload, outcome: string, to = location('googlebusiness')) =>
  preflightChannel(payload, to, MEDIA)
    .filter((warning) => warning.outcome === outcome)
    .map((warning) => warning.message);

describe('Google Business Profile pre-flight', () => {
  it('the summary: 1,500 characters', () => {
    expect(said(post({ caption: 'a'.repeat(1_500) }), 'fail')).toEqual([]);
    expect(said(post({ caption: 'a'.repeat(1_501) }), 'fail')).toEqual([
      'The text is 1501 characters; Google Business takes at most 1500. Shorten the caption, or give Google Business its own with platforms.googlebusiness.caption.',
    ]);
  });

  it('one photo, JPEG or PNG up to 5 MB; no video, no second file', () => {
    expect(said(post({ media: [{ id: 'photo' }] }), 'fail')).toEqual([]);
    expect(said(post({ media: [{ id: 'heavy' }] }), 'fail')).toEqual([
      'media.0 is 5,242,881 bytes; Google Business takes images up to 5 MB.',
    ]);
    expect(said(post({ media: [{ id: 'clip' }] }), 'fail')).toEqual([
      'Google Business does not take video/mp4 (media.0); it takes image/jpeg, image/png.',
    ]);
    expect(said(post({ media: [{ id: 'photo' }, { id: 'second' }] }), 'fail')).toEqual([
      'The post has 2 media; Google Business takes at most 1 in one post.',
    ]);
  });

  it('the auto-comment is told as not posted, connected or not', () => {
    const comment = post({ comment: { comment: 'Thanks!', delay: 0 } });
    const message = 'Google Business has no comments: the auto-comment is not posted there.';
    expect(said(comment, 'change')).toEqual([message]);
    expect(said(comment, 'change', location('sandbox', PLATFORM_CAPABILITIES['Google Business']))).toEqual([
      message,
    ]);
    expect(said(post({}), 'change')).toEqual([]);
  });
});
