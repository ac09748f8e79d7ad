/**
 * The figures of a failed call's hints are worked out, not copied: each is checked at a size where
 * swapping the operands of its subtraction, or counting UTF-16 units instead of characters, gives
 * another number (issue 25: "It has 6 items: remove 2." stayed green with `maxItems - items`). And a
 * field named `__proto__` is named as written in the message. Through the real SDK client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness, textOf } from './harness.js';

let h: McpHarness | undefined;
afterEach(async () => {
  if (h) {
    expect(h.logged).toEqual([]);
    await h.close();
    h = undefined;
  }
});

const draft = (extra: Record<string, unknown>) => ({
  brandId: 1,
  collectionId: 1,
  publishMode: 'DRAFT',
  caption: 'Fresh roast today',
  ...extra,
});
const poll = (options: unknown[], extra: Record<string, unknown> = {}) => ({
  poll: { question: 'Which roast?', options, period: '1d', ...extra },
});

/** The hint lines (after the summary line) of a call that must fail. */
async function hintLines(args: Record<string, unknown>): Promise<string[]> {
  h ??= await openMcpHarness();
  const result = await h.call('create_post', args);
  expect(result.isError, textOf(result)).toBe(true);
  const [summary, ...lines] = textOf(result).split('\n');
  expect(summary).toBe('The given data was invalid.');
  return lines;
}

describe('the figures of a hint', () => {
  it('says how many items to remove: the count given less the limit', async () => {
    expect(await hintLines(draft(poll(['A', 'B', 'C', 'D', 'E', 'F'])))).toEqual([
      '- poll.options: The poll.options may not have more than 4 items. It has 6 items: remove 2.',
    ]);
  });

  it('says how many items to add: the minimum less the count given', async () => {
    expect(await hintLines(draft(poll([])))).toEqual([
      '- poll.options: The poll.options must have at least 2 items. It has 0 items: add 2 more.',
    ]);
  });

  it('says by how much to shorten, in characters (code points), not UTF-16 units', async () => {
    expect(await hintLines(draft({ caption: '😀'.repeat(3002) }))).toEqual([
      '- caption: The caption may not be greater than 3000 characters. It has 3002 characters: shorten it by 2.',
    ]);
    expect(await hintLines(draft(poll(['😀'.repeat(32), 'B'])))).toEqual([
      '- poll.options.0: The poll.options.0 may not be greater than 30 characters. It has 32 characters: shorten it by 2.',
    ]);
  });

  it('counts the options of a correct option index from 0 to one less than their number', async () => {
    expect(await hintLines(draft(poll(['A', 'B', 'C', 'D'], { correctOptionIndex: 9 })))).toEqual([
      '- poll.correctOptionIndex: The poll.correct option index must be between 0 and 3. It counts from 0: 0 is the first of the 4 options and 3 the last.',
    ]);
  });
});

describe('a field named __proto__', () => {
  // The SDK's own parsing drops a top-level "__proto__" argument; one inside an object reaches us.
  it('is named as written, and the hint lists what the object takes', async () => {
    const args = JSON.parse(
      JSON.stringify(draft(poll(['A', 'B']))).replace('"period":"1d"', '"period":"1d","__proto__":1'),
    ) as Record<string, unknown>;
    expect(await hintLines(args)).toEqual([
      '- poll.__proto__: The poll.__proto__ field is not allowed. poll takes question, options, period, correctOptionIndex, explanation.',
    ]);
  });
});
