/**
 * SOCIAL_PUBLISHER_MEDIA_S3_*: object storage for uploaded media. Unset, the media directory; the bucket
 * and both credentials together, or a ConfigError that names what is missing (never the secret); AWS by
 * default, any S3-compatible endpoint by address; not with remote mode.
 */
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const load = (env: Record<string, string>) =>
  loadConfig(['serve'], { SOCIAL_PUBLISHER_DATA_DIR: '/tmp/x', ...env });
const SECRET = 'very-secret-value-9f8e';
const COMPLETE = {
  SOCIAL_PUBLISHER_MEDIA_S3_BUCKET: 'acme-media',
  SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY: SECRET,
};

/** The ConfigError `env` gets, checked never to show the secret. */
function refusal(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain(SECRET);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

it('is off unless set, and AWS S3 in us-east-1 with the bucket and both credentials', () => {
  expect(load({}).mediaBucket).toBeUndefined();
  expect(load({ SOCIAL_PUBLISHER_MEDIA_S3_BUCKET: '' }).mediaBucket).toBeUndefined();
  expect(load(COMPLETE).mediaBucket).toEqual({
    bucket: 'acme-media',
    region: 'us-east-1',
    accessKeyId: 'AKIAEXAMPLE',
    secretAccessKey: SECRET,
  });
});

it('takes an endpoint (R2, MinIO) and a region', () => {
  const r2 = load({
    ...COMPLETE,
    SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT: 'https://0123abcd.r2.cloudflarestorage.com/',
    SOCIAL_PUBLISHER_MEDIA_S3_REGION: 'auto',
  }).mediaBucket;
  expect(r2).toMatchObject({ endpoint: 'https://0123abcd.r2.cloudflarestorage.com', region: 'auto' });
  const minio = load({ ...COMPLETE, SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT: 'http://10.0.0.5:9000' }).mediaBucket;
  expect(minio).toMatchObject({ endpoint: 'http://10.0.0.5:9000', region: 'us-east-1' });
});

it('refuses incomplete settings, naming what is missing and what is set', () => {
  expect(refusal({ SOCIAL_PUBLISHER_MEDIA_S3_BUCKET: 'acme-media' })).toBe(
    'Object storage for media needs SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID and SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY too (set: SOCIAL_PUBLISHER_MEDIA_S3_BUCKET). Unset them all to keep media in the data directory.',
  );
  expect(refusal({ SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY: SECRET })).toContain(
    'needs SOCIAL_PUBLISHER_MEDIA_S3_BUCKET and SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID too (set: SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY)',
  );
  expect(refusal({ SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9000' })).toContain(
    'needs SOCIAL_PUBLISHER_MEDIA_S3_BUCKET and SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID and SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY',
  );
});

it('refuses a bad bucket name, endpoint or region, and remote mode', () => {
  expect(refusal({ ...COMPLETE, SOCIAL_PUBLISHER_MEDIA_S3_BUCKET: 'Acme_Media' })).toContain(
    'SOCIAL_PUBLISHER_MEDIA_S3_BUCKET must be a bucket name',
  );
  expect(refusal({ ...COMPLETE, SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT: 'minio:9000' })).toContain(
    'SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT must be the http(s) address of the S3 API',
  );
  expect(
    refusal({ ...COMPLETE, SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT: `https://key:${SECRET}@s3.example.com` }),
  ).toContain('must not hold credentials');
  expect(refusal({ ...COMPLETE, SOCIAL_PUBLISHER_MEDIA_S3_REGION: 'US East' })).toContain(
    'SOCIAL_PUBLISHER_MEDIA_S3_REGION must be a region name',
  );
  expect(refusal({ ...COMPLETE, SOCIAL_PUBLISHER_API_URL: 'https://publisher.example.com/v1' })).toContain(
    'exclude each other',
  );
});
