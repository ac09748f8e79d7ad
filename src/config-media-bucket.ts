/**
 * SOCIAL_PUBLISHER_MEDIA_S3_BUCKET, _ENDPOINT, _REGION, _ACCESS_KEY_ID and _SECRET_ACCESS_KEY: S3-compatible
 * object storage (AWS S3, Cloudflare R2, MinIO, …) that keeps uploaded media instead of the media directory, and hands platforms presigned addresses of them. Set
 * the bucket and the credentials; the endpoint only for a provider other than AWS. Incomplete settings
 * are refused at the start, naming what is missing; the secret is never part of a message.
 */
import { ConfigError, httpUrl, nonEmpty } from './config-values.js';

export interface MediaBucketConfig {
  bucket: string;
  /**
   * The S3 API's origin (R2: https://<account>.r2.cloudflarestorage.com, MinIO: http://host:9000), the
   * bucket in the path; absent: AWS S3 in `region`, the bucket in the host name.
   */
  endpoint?: string;
  /** The signing region: the AWS region; us-east-1 by default, which R2 and MinIO take too. */
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const SETTINGS = {
  BUCKET: 'SOCIAL_PUBLISHER_MEDIA_S3_BUCKET',
  ENDPOINT: 'SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT',
  REGION: 'SOCIAL_PUBLISHER_MEDIA_S3_REGION',
  ACCESS_KEY_ID: 'SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID',
  SECRET_ACCESS_KEY: 'SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY',
} as const;
type Setting = keyof typeof SETTINGS;
const NAMES = Object.keys(SETTINGS) as Setting[];
const REQUIRED: Setting[] = ['BUCKET', 'ACCESS_KEY_ID', 'SECRET_ACCESS_KEY'];
/** Bucket names as S3 allows them (3 to 63 lower-case letters, digits, dots and hyphens). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The object storage settings; undefined when none is set (the media directory). */
export function parseMediaBucket(
  env: NodeJS.ProcessEnv,
  apiUrl: string | undefined,
): MediaBucketConfig | undefined {
  const value: Record<Setting, string | undefined> = {
    BUCKET: nonEmpty(env.SOCIAL_PUBLISHER_MEDIA_S3_BUCKET),
    ENDPOINT: nonEmpty(env.SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT),
    REGION: nonEmpty(env.SOCIAL_PUBLISHER_MEDIA_S3_REGION),
    ACCESS_KEY_ID: nonEmpty(env.SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID),
    SECRET_ACCESS_KEY: nonEmpty(env.SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY),
  };
  if (NAMES.every((name) => value[name] === undefined)) return undefined;
  if (apiUrl !== undefined) {
    throw new ConfigError(
      'SOCIAL_PUBLISHER_MEDIA_S3_BUCKET (object storage) and SOCIAL_PUBLISHER_API_URL exclude each other: remote mode keeps no media here; set them on the server.',
    );
  }
  const missing = REQUIRED.filter((name) => value[name] === undefined).map((name) => SETTINGS[name]);
  if (missing.length > 0) {
    const set = NAMES.filter((name) => value[name] !== undefined).map((name) => SETTINGS[name]);
    throw new ConfigError(
      `Object storage for media needs ${missing.join(' and ')} too (set: ${set.join(', ')}). Unset them all to keep media in the data directory.`,
    );
  }
  const bucket = value.BUCKET!;
  if (!BUCKET.test(bucket) || bucket.includes('..')) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_MEDIA_S3_BUCKET must be a bucket name (3 to 63 lower-case letters, digits, dots and hyphens), not "${bucket}".`,
    );
  }
  const region = value.REGION ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,40}$/.test(region)) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_MEDIA_S3_REGION must be a region name such as us-east-1 or auto, not "${region}".`,
    );
  }
  const config: MediaBucketConfig = {
    bucket,
    region,
    accessKeyId: value.ACCESS_KEY_ID!,
    secretAccessKey: value.SECRET_ACCESS_KEY!,
  };
  if (value.ENDPOINT !== undefined) config.endpoint = parseEndpoint(value.ENDPOINT);
  return config;
}

/** An http(s) origin, perhaps with a path prefix; no query, no credentials in it. */
function parseEndpoint(text: string): string {
  const url = httpUrl(text);
  if (!url) {
    throw new ConfigError(
      `SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT must be the http(s) address of the S3 API, such as https://<account>.r2.cloudflarestorage.com or http://127.0.0.1:9000, not "${text}".`,
    );
  }
  if (url.username || url.password) {
    throw new ConfigError(
      'SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT must not hold credentials: set SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID and SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY instead.',
    );
  }
  return url.href.replace(/\/+$/, '');
}
