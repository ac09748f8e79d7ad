/**
 * How the store's statements go to node-postgres: their parameters made storable, and a name for each
 * text, so that a connection prepares it once.
 */
import type { SqlParam } from './sql.js';

/**
 * PostgreSQL text cannot hold U+0000: a statement with it fails ("invalid byte sequence"), and a
 * request with such an idempotency key, or a platform answer with one in its failure reason, would fail
 * with it. It is kept as U+FFFD, as the UTF-8 encoding already keeps a lone surrogate; lookups map the
 * same way, so a key still finds its post.
 */
function storable(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/**
 * Texts made storable; node-postgres sends a Buffer as bytea, and a plain Uint8Array is wrapped (no copy).
 */
export function driverParams(params: readonly SqlParam[]): unknown[] {
  return params.map((param) => {
    if (typeof param === 'string') return storable(param);
    if (param instanceof Uint8Array) {
      return Buffer.isBuffer(param) ? param : Buffer.from(param.buffer, param.byteOffset, param.byteLength);
    }
    if (Array.isArray(param)) return param.map((item) => (typeof item === 'string' ? storable(item) : item));
    return param;
  });
}

/**
 * A statement with parameters goes as a named prepared statement: PostgreSQL parses and plans it once per
 * connection instead of at every run (most of the server's work for a create_post). The name is the
 * statement's: the same text has the same name on every connection, as node-postgres requires. Texts
 * made on the fly (a multi-row INSERT's length, a filter's terms) are few, but past `NAMED_LIMIT`
 * distinct ones the rest go unnamed, so that no connection keeps an unbounded number.
 */
const NAMED_LIMIT = 500;
const statementNames = new Map<string, string>();

export function statement(
  text: string,
  values: unknown[],
): { text: string; values: unknown[]; name?: string } {
  if (values.length === 0) return { text, values };
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < NAMED_LIMIT) {
    name = `spm_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
