/**
 * One bucket of an S3-compatible object storage over its HTTP API, signed with AWS Signature Version 4
 * (aws4fetch): PUT a whole object, GET, DELETE, and presigned GET addresses. Virtual-hosted addresses on
 * AWS S3 (`https://<bucket>.s3.<region>.amazonaws.com/<key>`), path-style under a configured endpoint
 * (`<endpoint>/<bucket>/<key>`: R2, MinIO and the others all take it). Refusals become errors that say
 * what the storage answered (its error code and message), never the credentials.
 */
import { AwsClient, AwsV4Signer } from 'aws4fetch';
import type { MediaBucketConfig } from '../config-media-bucket.js';

/** The longest a presigned address may work, by the S3 API's rule (7 days). */
const MAX_PRESIGNED_SECONDS = 604_800;

export class S3Bucket {
  private readonly client: AwsClient;

  constructor(private readonly config: MediaBucketConfig) {
    this.client = new AwsClient({
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      service: 's3',
      region: config.region,
    });
  }

  /** Where the bucket is, for messages: no credentials in it. */
  get location(): string {
    return `${this.config.endpoint ?? 'AWS S3'} (bucket ${this.config.bucket})`;
  }

  /** The object's address: path-style under an endpoint, virtual-hosted on AWS. */
  objectUrl(key: string): string {
    const path = key.split('/').map(encodeURIComponent).join('/');
    const { endpoint, bucket, region } = this.config;
    return endpoint
      ? `${endpoint}/${bucket}/${path}`
      : `https://${bucket}.s3.${region}.amazonaws.com/${path}`;
  }

  /**
   * Uploads a whole object in one PUT of known length, streamed from `body` (a file on disk), its
   * SHA-256 signed so that the storage refuses bytes that changed on the way.
   */
  async put(key: string, body: Blob, sha256: string, type: string): Promise<void> {
    const response = await this.send(key, {
      method: 'PUT',
      body,
      headers: { 'content-type': type, 'x-amz-content-sha256': sha256 },
      // Any other mode makes fetch keep a copy of the body as it is sent, all 100 MB of it, to send it
      // again after a redirect (the Fetch standard clones the request, teeing its body).
      redirect: 'error',
    });
    await this.expectDone(response, `store ${key}`);
  }

  /**
   * Copies an object within the bucket, server-side, with its type: the copy appears whole or not at all.
   */
  async copy(from: string, to: string): Promise<void> {
    const source = `/${this.config.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
    const response = await this.send(to, {
      method: 'PUT',
      headers: { 'x-amz-copy-source': source, 'x-amz-metadata-directive': 'COPY' },
    });
    await this.expectDone(response, `copy ${from} to ${to}`);
  }

  /** The object's bytes as they arrive (the caller reads or cancels the body). */
  async get(key: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const response = await this.send(key, { method: 'GET', ...(signal ? { signal } : {}) });
    if (!response.ok)
      throw this.refusal(response.status, await response.text().catch(() => ''), `read ${key}`);
    if (!response.body) throw new Error(`The media bucket ${this.location} answered ${key} without a body.`);
    return response.body as ReadableStream<Uint8Array>;
  }

  async delete(key: string): Promise<void> {
    const response = await this.send(key, { method: 'DELETE' });
    // 404: gone already, which is what was asked.
    if (response.status !== 404) await this.expectDone(response, `delete ${key}`);
    else await response.body?.cancel();
  }

  /** A GET address of one object, signed at `nowMs`, working until `expiresAtMs` (at most 7 days). */
  async presign(key: string, nowMs: number, expiresAtMs: number): Promise<string> {
    const seconds = Math.min(MAX_PRESIGNED_SECONDS, Math.max(1, Math.ceil((expiresAtMs - nowMs) / 1000)));
    const url = new URL(this.objectUrl(key));
    url.searchParams.set('X-Amz-Expires', String(seconds));
    const signer = new AwsV4Signer({
      method: 'GET',
      url: url.href,
      accessKeyId: this.config.accessKeyId,
      secretAccessKey: this.config.secretAccessKey,
      service: 's3',
      region: this.config.region,
      signQuery: true,
      datetime: new Date(nowMs).toISOString().replace(/[:-]|\.\d{3}/g, ''),
    });
    return (await signer.sign()).url.href;
  }

  /** Signs and sends one request, once: a refusal is for the caller to report, not to retry blindly. */
  private async send(key: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(await this.client.sign(this.objectUrl(key), init));
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const cause = (error as Error & { cause?: Error }).cause;
      if (/redirect/i.test(cause?.message ?? '')) {
        throw new Error(
          `The media bucket ${this.location} answered with a redirect: set SOCIAL_PUBLISHER_MEDIA_S3_REGION to the bucket's region, or SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT to its address.`,
          { cause: error },
        );
      }
      throw new Error(
        `Cannot reach the media bucket ${this.location}: ${cause?.message ?? (error as Error).message}.`,
        { cause: error },
      );
    }
  }

  /**
   * Reads an answer to a PUT, copy or DELETE: not 2xx, or an error document (S3 may answer a copy 200
   * and fail it), is a refusal naming the storage's code and message.
   */
  private async expectDone(response: Response, what: string): Promise<void> {
    const text = await response.text().catch(() => '');
    if (response.ok && !text.includes('<Error>')) return;
    throw this.refusal(response.status, text, what);
  }

  private refusal(status: number, text: string, what: string): Error {
    const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
    const message = /<Message>([^<]{1,300})<\/Message>/.exec(text)?.[1];
    const detail = code ? `${code}${message ? `: ${message}` : ''}` : `HTTP ${status}`;
    return new Error(`The media bucket ${this.location} refused to ${what}: ${detail}`);
  }
}
