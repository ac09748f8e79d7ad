import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { TOOLS_REFERENCE_PATH, toolsReference } from '../scripts/tools-reference.js';

it('docs/tools.md is generated from the registry and up to date (run `npm run docs`)', () => {
  expect(readFileSync(TOOLS_REFERENCE_PATH, 'utf8')).toBe(toolsReference());
});
