/** The settings of several instances: the drain on SIGTERM and the PostgreSQL database, as read and checked. */
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const serve = (env: NodeJS.ProcessEnv) =>
  loadConfig(['serve'], { SOCIAL_PUBLISHER_DATA_DIR: '/tmp/x', ...env });

it('reads SOCIAL_PUBLISHER_DRAIN_SECONDS: 0 by default, whole seconds up to 300', () => {
  expect(serve({}).drainMs).toBe(0);
  expect(serve({ SOCIAL_PUBLISHER_DRAIN_SECONDS: '5' }).drainMs).toBe(5_000);
  expect(serve({ SOCIAL_PUBLISHER_DRAIN_SECONDS: ' ' }).drainMs).toBe(0);
  for (const bad of ['301', '-1', '2.5', 'soon']) {
    expect(() => serve({ SOCIAL_PUBLISHER_DRAIN_SECONDS: bad })).toThrow(
      new ConfigError(
        `SOCIAL_PUBLISHER_DRAIN_SECONDS must be a whole number of seconds from 0 to 300, not "${bad}".`,
      ),
    );
  }
});

it('reads the PostgreSQL database and its pool size, and refuses a pool size without a database', () => {
  const url = 'postgres://spm:secret@db.internal:5432/social_publisher';
  expect(serve({}).database).toBeUndefined();
  expect(serve({ SOCIAL_PUBLISHER_DATABASE_URL: url }).database).toEqual({ url, poolSize: 10 });
  expect(
    serve({ SOCIAL_PUBLISHER_DATABASE_URL: url, SOCIAL_PUBLISHER_DATABASE_POOL_SIZE: '4' }).database,
  ).toEqual({ url, poolSize: 4 });
  expect(() => serve({ SOCIAL_PUBLISHER_DATABASE_POOL_SIZE: '4' })).toThrow(
    'SOCIAL_PUBLISHER_DATABASE_POOL_SIZE applies to PostgreSQL: set SOCIAL_PUBLISHER_DATABASE_URL too.',
  );
  expect(() => serve({ SOCIAL_PUBLISHER_DATABASE_URL: 'mysql://x' })).toThrow(ConfigError);
});
