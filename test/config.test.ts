/**
 * The settings of several instances (the drain on SIGTERM, the PostgreSQL database) and of the webhook's
 * receiver, as read and checked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  expect(serve({ SOCIAL_PUBLISHER_DATABASE_URL: url }).database).toEqual({
    url,
    poolSize: 10,
    timeoutMs: 10_000,
  });
  expect(
    serve({ SOCIAL_PUBLISHER_DATABASE_URL: url, SOCIAL_PUBLISHER_DATABASE_POOL_SIZE: '4' }).database,
  ).toEqual({ url, poolSize: 4, timeoutMs: 10_000 });
  expect(() => serve({ SOCIAL_PUBLISHER_DATABASE_POOL_SIZE: '4' })).toThrow(
    'SOCIAL_PUBLISHER_DATABASE_POOL_SIZE applies to PostgreSQL: set SOCIAL_PUBLISHER_DATABASE_URL too.',
  );
  expect(() => serve({ SOCIAL_PUBLISHER_DATABASE_URL: 'mysql://x' })).toThrow(ConfigError);
});

it('reads SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS: 10 by default, whole seconds from 1 to 600, with a database only', () => {
  const url = 'postgres://spm:secret@db.internal:5432/social_publisher';
  const timeout = (seconds: string) =>
    serve({ SOCIAL_PUBLISHER_DATABASE_URL: url, SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS: seconds })
      .database;
  expect(timeout('1')?.timeoutMs).toBe(1_000);
  expect(timeout('600')?.timeoutMs).toBe(600_000);
  expect(timeout(' ')?.timeoutMs).toBe(10_000);
  for (const bad of ['0', '601', '1.5', '-1', 'ten']) {
    expect(() => timeout(bad)).toThrow(
      `SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 600, not "${bad}".`,
    );
  }
  expect(() => serve({ SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS: '5' })).toThrow(
    'SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS applies to PostgreSQL: set SOCIAL_PUBLISHER_DATABASE_URL too.',
  );
});

it('reads SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES (or webhookDeduplicates in publisher.json): off by default, only with the webhook', () => {
  const webhook = {
    SOCIAL_PUBLISHER_WEBHOOK_URL: 'https://hooks.example.com/social',
    SOCIAL_PUBLISHER_WEBHOOK_SECRET: 'a-secret-of-16-characters',
  };
  expect(serve(webhook).publisher).toEqual({
    kind: 'webhook',
    url: webhook.SOCIAL_PUBLISHER_WEBHOOK_URL,
    secret: webhook.SOCIAL_PUBLISHER_WEBHOOK_SECRET,
    deduplicates: false,
  });
  for (const [text, value] of [
    ['1', true],
    ['true', true],
    ['Yes', true],
    ['0', false],
    ['false', false],
  ] as const) {
    expect(serve({ ...webhook, SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES: text }).publisher).toMatchObject({
      deduplicates: value,
    });
  }
  expect(() => serve({ ...webhook, SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES: 'maybe' })).toThrow(
    new ConfigError('SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES must be 1 or 0 (or true or false), not "maybe".'),
  );
  expect(() => serve({ SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES: '1' })).toThrow(
    'SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES is about the webhook publisher: set SOCIAL_PUBLISHER_WEBHOOK_URL and SOCIAL_PUBLISHER_WEBHOOK_SECRET too, or leave it unset.',
  );
});

it('reads webhookDeduplicates from publisher.json, the environment winning', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'spm-config-'));
  try {
    writeFileSync(
      join(dataDir, 'publisher.json'),
      JSON.stringify({
        webhookUrl: 'https://hooks.example.com/social',
        webhookSecret: 'a-secret-of-16-characters',
        webhookDeduplicates: true,
      }),
    );
    const from = (env: NodeJS.ProcessEnv) =>
      loadConfig(['serve'], { SOCIAL_PUBLISHER_DATA_DIR: dataDir, ...env }).publisher;
    expect(from({})).toMatchObject({ kind: 'webhook', deduplicates: true });
    expect(from({ SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES: '0' })).toMatchObject({ deduplicates: false });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
