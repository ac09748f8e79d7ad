/**
 * A bucket that refuses the server's uploads (a wrong secret) is a storage fault, not a server error:
 * the built `serve` answers an upload 503 with `errors.storage` saying the media storage did not keep
 * the file, logs what the storage answered (SignatureDoesNotMatch) for the operator, and shows the
 * secret nowhere, neither to the caller nor in its log.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { MEDIA_STORAGE_TEXT } from '../../src/domain/errors.js';
import { pngBytes } from '../contract/media-files.js';
import { cleanup, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { programEnv, startServe, uploadMedia } from '../support/connected-program.js';
import { startS3Server } from './s3-server.js';

const closing: (() => Promise<void>)[] = [];
beforeAll(() => requireBuild());
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await cleanup();
});

it('a wrong bucket secret: the upload answers 503 (media storage), the log says why, the secret shows nowhere', async () => {
  const s3 = await startS3Server();
  closing.push(() => s3.close());
  const secret = 'not-the-bucket-secret-3c9d';
  const serve = await startServe(
    programEnv(tempDir('spm-s3-refused-'), {
      ...s3.env,
      SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY: secret,
    }),
  );
  closing.push(() => serve.kill());
  const answer = await uploadMedia(serve, pngBytes(4), 'image/png', 'roast.png');
  const text = await answer.text();
  expect(answer.status).toBe(503);
  expect(JSON.parse(text)).toEqual({
    status: 'error',
    message: 'Service Unavailable.',
    errors: { storage: MEDIA_STORAGE_TEXT },
  });
  expect(serve.stderr()).toMatch(
    /POST \/v1\/brands\/1\/media failed, nothing saved: The media bucket http:\/\/127\.0\.0\.1:\d+ \(bucket spm-media\) refused to store uploads\/[0-9a-f]{32}: SignatureDoesNotMatch/,
  );
  expect(text + serve.stderr()).not.toContain(secret);
  expect(await s3.keys()).toEqual([]);
});
