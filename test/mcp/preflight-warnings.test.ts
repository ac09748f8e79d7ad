/**
 * Warnings before publishing, over MCP: create_post (dry run or not) and update_post say per channel what
 * will be skipped, fail or be changed, in the result text (first) and in the structured result.
 * Demo brand Northwind Coffee: collection 1 "Everywhere" (12 platforms, Pinterest INACTIVE), collection 2
 * "Visual" (Instagram, Facebook, Pinterest, TikTok, YouTube: no polls).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHarness, openMcpHarness } from './harness.js';

interface Warning {
  channelName: string;
  outcome: 'fail' | 'skip' | 'change';
  message: string;
}

let h: McpHarness;

beforeAll(async () => {
  h = await openMcpHarness();
});

afterAll(async () => {
  await h.close();
});

const POLL = { question: 'Which roast?', options: ['Light', 'Dark'], period: '1d' };
const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

function warningsOf(result: CallToolResult): Warning[] {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return (result.structuredContent as { data: { warnings?: Warning[] } }).data.warnings ?? [];
}

/** Each structured warning is also a line of the text, before the result's own message. */
function expectWarningsInText(result: CallToolResult, warnings: Warning[]): void {
  const text = textOf(result);
  const lines = text.split('\n');
  const label = { fail: 'WILL FAIL', skip: 'SKIPPED', change: 'CHANGED' };
  for (const warning of warnings)
    expect(lines).toContain(`- ${warning.channelName}: ${label[warning.outcome]}: ${warning.message}`);
  expect(lines[0]).toBe(`Before publishing, per channel (${warnings.length}):`);
}

describe('warnings before publishing', () => {
  it('an IMMEDIATE poll to five platforms without polls: each says it goes caption-only, the INACTIVE one fails', async () => {
    const result = await h.call('create_post', {
      brandId: 1,
      collectionId: 2,
      publishMode: 'IMMEDIATE',
      caption: 'Light or dark this week?',
      poll: POLL,
    });
    const warnings = warningsOf(result);
    const pollNotes = warnings.filter((w) => w.outcome === 'change');
    expect(pollNotes.map((w) => w.channelName.replace('Northwind Coffee on ', ''))).toEqual([
      'Instagram',
      'Facebook',
      'TikTok',
      'YouTube',
    ]);
    for (const note of pollNotes)
      expect(note.message).toMatch(/does not support polls: only the caption is sent, without the poll\.$/);
    const failing = warnings.filter((w) => w.outcome === 'fail');
    expect(failing.find((w) => w.channelName.endsWith('Pinterest'))?.message).toContain('INACTIVE');
    // Instagram, TikTok and YouTube also need media: told before, not found out after.
    expect(
      failing.filter((w) => /publishes nothing without media/.test(w.message)).map((w) => w.channelName),
    ).toEqual(['Northwind Coffee on Instagram', 'Northwind Coffee on TikTok', 'Northwind Coffee on YouTube']);
    expectWarningsInText(result, warnings);
  });

  it('a dry run with a poll and no caption, a Story and a title: skipped, changed and failing channels, nothing stored', async () => {
    const result = await h.call('create_post', {
      brandId: 1,
      collectionId: 1,
      publishMode: 'IMMEDIATE',
      dryRun: true,
      poll: POLL,
      title: 'Roasts',
      postAsStory: true,
    });
    const warnings = warningsOf(result);
    const outcomes = (outcome: Warning['outcome'], pattern: RegExp) =>
      warnings
        .filter((w) => w.outcome === outcome && pattern.test(w.message))
        .map((w) => w.channelName.replace('Northwind Coffee on ', ''))
        .sort();
    expect(outcomes('skip', /does not support polls/)).toEqual(
      ['Facebook', 'Google Business', 'Instagram', 'TikTok', 'YouTube'].sort(),
    );
    expect(outcomes('change', /no Stories/)).toEqual(
      ['Bluesky', 'LinkedIn', 'Mastodon', 'Telegram', 'Threads', 'X/Twitter'].sort(),
    );
    expect(outcomes('change', /no title/)).toEqual(
      ['Bluesky', 'LinkedIn', 'Mastodon', 'Telegram', 'Threads', 'X/Twitter'].sort(),
    );
    expect(outcomes('fail', /INACTIVE/)).toEqual(['Pinterest']);
    expectWarningsInText(result, warnings);
    expect((result.structuredContent as { data: { id: null } }).data.id).toBeNull();
  });

  it('update_post warns about the post as changed', async () => {
    const draft = await h.call('create_post', {
      brandId: 1,
      collectionId: 2,
      publishMode: 'DRAFT',
      caption: 'Weekend hours',
    });
    const before = warningsOf(draft);
    expect(before.every((w) => w.outcome === 'fail')).toBe(true); // Pinterest INACTIVE; media needed
    expect(before.some((w) => /no title/.test(w.message))).toBe(false);
    const postId = (draft.structuredContent as { data: { id: number } }).data.id;
    const updated = await h.call('update_post', { brandId: 1, postId, title: 'Hours' });
    const warnings = warningsOf(updated);
    expect(warnings.filter((w) => /no title/.test(w.message)).map((w) => w.channelName)).toEqual([
      'Northwind Coffee on Instagram',
      'Northwind Coffee on Facebook',
    ]);
    expectWarningsInText(updated, warnings);
  });

  it('says nothing when nothing will be skipped, fail or change', async () => {
    const result = await h.call('create_post', {
      brandId: 1,
      collectionId: 3,
      publishMode: 'DRAFT',
      caption: 'Short and plain',
    });
    expect(warningsOf(result)).toEqual([]);
    expect(textOf(result)).not.toContain('Before publishing');
  });
});
