/** A Node >= 22.13 binary for the checks that need one (bundle, conformance); see scripts/node22.mjs. */
// @ts-expect-error: a plain ES module script, without types.
import { node22 as find } from '../../scripts/node22.mjs';

export const node22: () => string = find;
