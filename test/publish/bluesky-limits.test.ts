/**
 * Bluesky's limits, held by the pre-flight and the connector alike, against a real PDS (test/pds): a
 * post's text of 300 graphemes and 3,000 UTF-8 bytes, its link on the next line and a poll written out
 * counted in it, and four images. At each limit the pre-flight fails nothing, the PDS takes the record
 * and its text is the text the pre-flight measured; one past it, the pre-flight says the post will fail,
 * and the connector refuses it before sending. The PDS itself refuses what is past its lexicon's limits,
 * so the limits are Bluesky's, not ours.
 */
import { AtpAgent } from '@atproto/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaFacts } from '../../src/domain/preflight.js';
import type { ConnectorContext, MediaSource } from '../../src/publish/connector.js';
import { openBluesky, verifyBluesky } from '../../src/publish/connectors/bluesky/bluesky-connector.js';
import { parseAtUri } from '../../src/publish/connectors/bluesky/bluesky-post.js';
import { mediaFromBytes } from '../../src/publish/media-loader.js';
import { pngBytes } from '../contract/media-files.js';
import { startPds, type TestPds } from '../support/bluesky-pds.js';
import {
  type ConnectedChannel,
  connectedChannel,
  deliverChecked,
  post,
} from '../support/checked-delivery.js';

const LINK = `https://northwind.example/${'roast/'.repeat(10)}`;
const FAMILY = '👨‍👩‍👧'; // one grapheme of 18 bytes
const a = (count: number) => 'a'.repeat(count);
const IDS = ['i1', 'i2', 'i3', 'i4', 'i5'];
const FILES = new Map<string, MediaSource>(
  IDS.map((id, index) => [id, mediaFromBytes(pngBytes(index), 'image/png', `${id}.png`)]),
);
const MEDIA: MediaFacts = new Map(IDS.map((id) => [id, { type: 'image/png', size: FILES.get(id)!.size }]));
const images = (count: number) => IDS.slice(0, count).map((id) => ({ id }));
const ROASTS = {
  question: 'Which roast?',
  options: ['Light', 'Medium', 'Dark', 'Decaf'],
  period: '1d' as const,
};
const NO_POLLS = 'Bluesky has no polls: the question and the options are added to the text instead.';

describe('Bluesky limits, pre-flight and connector against a real PDS', () => {
  let pds: TestPds;
  let bluesky: ConnectedChannel;
  let agent: AtpAgent;

  beforeAll(async () => {
    pds = await startPds();
    const verified = await verifyBluesky({
      service: pds.service,
      handle: pds.handle,
      password: pds.appPassword,
    });
    const context: ConnectorContext = {
      loadMedia: async (_brandId, media) => FILES.get(media.id ?? '')!,
      saveSecret: async () => {},
      clock: { now: () => Date.UTC(2026, 10, 25, 12) },
      log: () => {},
      timeoutMs: 10_000,
      userAgent: 'social-publisher-mcp/test',
    };
    bluesky = connectedChannel(verified, 'Bluesky', openBluesky({ ...verified, channelId: 5 }, context));
    agent = new AtpAgent({ service: pds.service });
    await agent.login({ identifier: pds.handle, password: pds.appPassword });
  }, 90_000);

  afterAll(async () => {
    await bluesky?.publisher.close?.();
    await pds?.stop();
  });

  async function recordOf(outcome: Awaited<ReturnType<typeof deliverChecked>>['outcome']) {
    if (outcome.ok !== true || !outcome.externalId) throw new Error(`not sent: ${JSON.stringify(outcome)}`);
    const { repo, collection, rkey } = parseAtUri(outcome.externalId)!;
    const { data } = await agent.com.atproto.repo.getRecord({ repo, collection, rkey });
    return data.value as { text: string; embed?: { images: unknown[] } };
  }

  it('caption, link on the next line, and a poll written out: 300 taken as measured, 301 refused', async () => {
    const caption = a(250 - 1 - LINK.length);
    const atLimit = await deliverChecked(bluesky, post({ caption, link: LINK, poll: ROASTS }), MEDIA);
    expect(atLimit).toMatchObject({ fails: [], changes: [NO_POLLS], length: 300 });
    expect((await recordOf(atLimit.outcome)).text).toBe(atLimit.measured);
    expect(atLimit.measured).toBe(
      `${caption}\n${LINK}\n\nWhich roast?\n1. Light\n2. Medium\n3. Dark\n4. Decaf`,
    );

    const over = await deliverChecked(
      bluesky,
      post({ caption: `${caption}a`, link: LINK, poll: ROASTS }),
      MEDIA,
    );
    expect(over.fails).toEqual([
      expect.stringMatching(
        /^The text is 301 characters \(as people see them\), the link and the poll written out included;/,
      ),
    ]);
    expect(over.outcome).toEqual({
      ok: false,
      kind: 'refused',
      reason:
        'The text with the poll written out is 301 characters; Bluesky takes 300: shorten it (or give platforms.bluesky.caption).',
    });
  });

  it('3,000 bytes in UTF-8 taken, 3,001 refused', async () => {
    const caption = FAMILY.repeat(166) + a(12);
    const atLimit = await deliverChecked(bluesky, post({ caption }), MEDIA);
    expect(atLimit).toMatchObject({ fails: [], changes: [] });
    expect((await recordOf(atLimit.outcome)).text).toBe(caption);

    const over = await deliverChecked(bluesky, post({ caption: `${caption}a` }), MEDIA);
    expect(over.fails).toEqual([
      expect.stringMatching(/^The text is 3001 bytes in UTF-8; Bluesky takes at most 3000\./),
    ]);
    expect(over.outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      reason: 'The text is 3001 bytes in UTF-8; Bluesky takes 3000.',
    });
  });

  it('four images taken, all four in the record; five refused before anything is uploaded', async () => {
    const four = await deliverChecked(bluesky, post({ caption: 'Four roasts', media: images(4) }), MEDIA);
    expect(four).toMatchObject({ fails: [], changes: [] });
    expect((await recordOf(four.outcome)).embed?.images).toHaveLength(4);

    const five = await deliverChecked(bluesky, post({ caption: 'Five roasts', media: images(5) }), MEDIA);
    expect(five.fails).toEqual(['The post has 5 media; Bluesky takes at most 4 in one post.']);
    expect(five.outcome).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'Bluesky takes at most 4 images; the post has 5.',
    });
  });

  it('the PDS itself refuses a text one past either limit', async () => {
    const create = (text: string) =>
      agent.com.atproto.repo.createRecord({
        repo: pds.did,
        collection: 'app.bsky.feed.post',
        record: { $type: 'app.bsky.feed.post', text, createdAt: new Date().toISOString() },
      });
    await expect(create(a(301))).rejects.toThrow('grapheme too big (maximum 300, got 301)');
    await expect(create(FAMILY.repeat(166) + a(13))).rejects.toThrow(
      'string too big (maximum 3000, got 3001)',
    );
  });
});
