/** file-type, loaded on the first upload (see media/undici-client.ts for why through a module of ours). */
export { fileTypeFromBuffer } from 'file-type';
