/**
 * Reads the media upload: multipart/form-data with one file field, `media`, streamed to the store as it
 * arrives (busboy), never held in memory. A body that declares more than the limit is refused before
 * it is read.
 */
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { ValidationError } from '../domain/errors.js';
import { message } from '../domain/messages.js';
import type { Media } from '../domain/schemas.js';
import { MEDIA_MAX_BYTES } from '../service/upload-media.js';

/** Room for the multipart envelope around a file of the largest size. */
const ENVELOPE_BYTES = 64 * 1024;

export async function receiveMediaUpload(
  request: Request,
  store: (file: AsyncIterable<Uint8Array>) => Promise<Media>,
): Promise<Media> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > MEDIA_MAX_BYTES + ENVELOPE_BYTES)
    throw ValidationError.single('media', message.mediaTooLarge);
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType) || !request.body) {
    throw ValidationError.single('media', message.mediaRequired);
  }

  let parser: busboy.Busboy;
  try {
    // One byte over the limit reaches the store, which then knows the file is too large.
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { files: 1, fileSize: MEDIA_MAX_BYTES + 1, fields: 20 },
    });
  } catch {
    throw ValidationError.single('media', message.mediaRequired);
  }
  const body = Readable.fromWeb(request.body as import('node:stream/web').ReadableStream<Uint8Array>);
  return new Promise<Media>((resolve, reject) => {
    let upload: Promise<Media> | undefined;
    const unexpected: string[] = [];
    const fail = (error: unknown) => {
      body.unpipe(parser);
      body.destroy();
      reject(error);
    };
    parser.on('file', (field, file) => {
      if (field !== 'media' || upload) {
        if (field !== 'media') unexpected.push(field);
        file.resume();
        return;
      }
      upload = store(file);
      upload.catch(fail);
    });
    parser.on('field', (field) => unexpected.push(field));
    parser.on('error', () => fail(ValidationError.single('media', message.mediaRequired)));
    parser.on('close', () => {
      if (unexpected.length > 0 && !upload) {
        reject(
          new ValidationError(
            Object.fromEntries(unexpected.map((f) => [f, [`The ${f} field is not allowed.`]])),
          ),
        );
        return;
      }
      if (!upload) reject(ValidationError.single('media', message.mediaRequired));
      else upload.then(resolve, reject);
    });
    body.on('error', fail);
    body.pipe(parser);
  });
}
