/**
 * Packages a stdio start never runs, each bundled by scripts/build.mjs into a file of its own,
 * dist/chunks/<name>.cjs, which the program requires where it imports the package: read and compiled
 * when first used (a download, a publish, an upload, a check against a JSON Schema; remote mode's
 * requests), with Node's own code cache from Node 22.8 (src/launch.ts). Reading and decoding
 * program.cjs is part of every start, and it is 1.8 MB instead of 4.7 MB. The program keeps everything
 * a start runs, so V8's code cache of it still covers the whole start. test/bundle/ checks the list.
 */
export const CHUNKS = {
  '@atproto/api': 'atproto-api',
  undici: 'undici',
  'file-type': 'file-type',
  busboy: 'busboy',
  '@modelcontextprotocol/server/validators/ajv': 'ajv',
};
