/**
 * undici for the URL downloader, which loads it on its first download. A module of ours re-exports it
 * because a dynamic import of a CommonJS package yields, in the bundled program (scripts/build.mjs),
 * only a default export; through this module the names survive.
 */
export { Agent, request } from 'undici';
