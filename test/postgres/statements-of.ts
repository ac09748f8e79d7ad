/** Watching what the PostgreSQL store sends, for tests that count its statements. */
import { createRequire } from 'node:module';

/**
 * The texts of the statements the store sends while `work` runs, watched at the driver: the project's
 * own node-postgres (test/postgres has another copy, for its harness).
 */
export async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const pg = createRequire(new URL('../../package.json', import.meta.url))('pg') as {
    Client: { prototype: { query: (...args: unknown[]) => unknown } };
  };
  const proto = pg.Client.prototype;
  const original = proto.query;
  const texts: string[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: unknown } | null;
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') texts.push(text);
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return texts;
}
