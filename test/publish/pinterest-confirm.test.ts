/**
 * Pinterest's `confirm` (a pin whose answer was lost), against the stand-in's board: the pin is told
 * apart from the board's other pins by what it says and when it was made, found on any page read, and a
 * board too large to read to the end leaves the delivery failed with the reason, never pinned twice.
 * The engine's side (found: published; absent: pinned once more) is in pinterest-engine.test.ts.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeliveryJob } from '../../src/ports.js';
import { LOOKUP_PAGES } from '../../src/publish/connectors/pinterest/pinterest-lookup.js';
import type { PinterestPin } from '../support/pinterest-server.js';
import { type PinterestWorld, pinJob, startPinterestWorld } from '../support/pinterest-world.js';

let world: PinterestWorld;
let job: DeliveryJob;

beforeEach(async () => {
  world = await startPinterestWorld();
  const media = [world.file('m1', 'image/png')];
  job = { ...pinJob({ title: 'Roasted tomatoes', alt: 'A tray', media }), dueAtMs: world.clock.nowMs };
});

afterEach(async () => {
  await world.close();
});

const lookups = () => world.server.kit.requestsTo('/v5/boards/:board_id/pins');

/** Pins made on the board by someone else (another app, the Pinterest site): newer than ours. */
function othersPin(count: number, fields: Partial<PinterestPin> = {}) {
  for (let n = 0; n < count; n++) {
    world.server.pins.push({
      id: String(9_000_000 + world.server.pins.length),
      boardId: world.server.boards[0]!.id,
      title: `Another pin ${n}`,
      description: 'Not ours',
      link: null,
      altText: null,
      sourceType: 'image_url',
      imageBytes: [1],
      imageUrls: ['https://elsewhere.example/a.png'],
      videoId: null,
      cover: null,
      createdAtMs: world.clock.nowMs,
      ...fields,
    });
  }
}

it('finds the pin by what it says on a later page of the board, past the pins made after it', async () => {
  const publisher = await world.open();
  const made = await publisher.deliver(job);
  expect(made).toMatchObject({ ok: true });
  othersPin(260);
  expect(await publisher.confirm!(job)).toEqual({
    ok: true,
    externalId: world.server.pins[0]!.id,
    url: `https://www.pinterest.com/pin/${world.server.pins[0]!.id}/`,
  });
  expect(lookups().map((request) => request.query.get('page_size'))).toEqual(['250', '250']);
});

it('a pin saying the same but made before the post was due, or with other alt text, is not this one', async () => {
  const publisher = await world.open();
  const same = { title: 'Roasted tomatoes', description: job.content.caption!, altText: 'A tray' };
  othersPin(1, { ...same, createdAtMs: job.dueAtMs - 60 * 60_000 });
  othersPin(1, { ...same, altText: 'A different tray' });
  expect(await publisher.confirm!(job)).toEqual({ ok: 'absent' });
  expect(world.server.kit.requestsTo('/v5/pins', 'POST')).toHaveLength(0);
});

it('a board with more pins than are read, none of them this one: failed saying it cannot tell, nothing pinned', async () => {
  const publisher = await world.open();
  othersPin(LOOKUP_PAGES * 250 + 1);
  const outcome = await publisher.confirm!(job);
  expect(outcome).toMatchObject({ ok: false, kind: 'refused' });
  expect(outcome.ok === false && outcome.reason).toMatch(
    /more pins than the 1000 read to find it: whether it was pinned cannot be told/,
  );
  expect(lookups()).toHaveLength(LOOKUP_PAGES);
  expect(world.server.kit.requestsTo('/v5/pins', 'POST')).toHaveLength(0);
});

it('a lookup Pinterest does not answer is transient (a read: it may be repeated)', async () => {
  const publisher = await world.open(undefined, { timeoutMs: 300 });
  world.server.kit.hang('forever', { route: '/v5/boards/:board_id/pins' });
  const outcome = await publisher.confirm!(job);
  expect(outcome).toMatchObject({ ok: false, kind: 'transient' });
  expect(outcome.ok === false && outcome.reason).toContain("read of the board's pins");
});
