/**
 * The Bluesky client, loaded when a Bluesky channel first publishes. A module of ours re-exports it
 * because a dynamic import of a CommonJS package yields, in the bundled program (scripts/build.mjs),
 * only a default export; through this module the names survive.
 */
export { AtpAgent, RichText } from '@atproto/api';
