/**
 * Reads the media upload: multipart/form-data with exactly one file field, `media`, streamed to disk as
 * it arrives (busboy), never held in memory. The file is kept only once the whole body has been read and
 * found to hold nothing else; a body that declares more than the limit is refused before it is read.
 */
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { type FieldErrors, ValidationError } from '../domain/errors.js';
import { attributeName, message } from '../domain/messages.js';
import type { Media } from '../domain/schemas.js';
import type { StagedUpload } from '../service/publishing-service.js';
import { MEDIA_MAX_BYTES } from '../service/upload-media.js';

/** Room for the multipart envelope around a file of the largest size. */
const ENVELOPE_BYTES = 64 * 1024;
const ONE_FILE = 'Only one file may be uploaded per request.';

export async function receiveMediaUpload(
  request: Request,
  stage: (file: AsyncIterable<Uint8Array>) => Promise<StagedUpload>,
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
    // One byte over the limit reaches the stage, which then knows the file is too large.
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { files: 1, fileSize: MEDIA_MAX_BYTES + 1, fields: 20 },
    });
  } catch {
    throw ValidationError.single('media', message.mediaRequired);
  }
  const body = Readable.fromWeb(request.body as ReadableStream<Uint8Array>);

  const staged = await new Promise<{ upload?: StagedUpload; errors: FieldErrors }>((resolve, reject) => {
    let staging: Promise<StagedUpload> | undefined;
    // Null prototype: a field named `__proto__` is reported like any other unknown field.
    const errors: FieldErrors = Object.create(null);
    // A part without a name (busboy reports it as undefined) names no field: it is ignored, so a body of
    // such parts answers that the media field is required.
    const notAllowed = (field: string | undefined) => {
      if (field) errors[field] = [message.notAllowed(attributeName(field))];
    };
    let failed = false;
    const fail = (error: unknown) => {
      failed = true;
      body.unpipe(parser);
      body.destroy();
      // A file staged before the body broke must not stay behind.
      staging?.then(
        (upload) => upload.discard(),
        () => undefined,
      );
      reject(error);
    };
    parser.on('file', (field: string | undefined, file) => {
      if (field !== 'media') {
        notAllowed(field);
        // A body that ends inside this part destroys it with busboy's error; the parser reports that
        // error too (answered below), so here it only must not be thrown at the process.
        file.on('error', () => undefined);
        file.resume();
        return;
      }
      if (staging || failed) {
        // One file only, and none once the request has failed (busboy may still hand over a part it
        // had parsed): a file staged then would have no one left to discard it.
        if (staging) errors.media = [ONE_FILE];
        file.on('error', () => undefined);
        file.resume();
        return;
      }
      // The stage may read the file only later (it first finds the brand in the store: a round trip to a
      // database server), and a body that ends meanwhile destroys the file with busboy's error. The parser
      // reports it (answered below), and the stage's read still fails with it when it begins.
      file.on('error', () => undefined);
      staging = stage(file);
      staging.catch(fail);
    });
    parser.on('field', (field: string | undefined) => notAllowed(field));
    parser.on('filesLimit', () => {
      errors.media = [ONE_FILE];
    });
    parser.on('error', () => fail(ValidationError.single('media', message.mediaRequired)));
    parser.on('close', () => {
      if (!staging) {
        errors.media ??= [message.mediaRequired];
        resolve({ errors });
      } else {
        staging.then((upload) => resolve({ upload, errors }), reject);
      }
    });
    body.on('error', fail);
    body.pipe(parser);
  });
  if (Object.keys(staged.errors).length > 0) {
    await staged.upload?.discard();
    throw new ValidationError(staged.errors);
  }
  return staged.upload!.commit();
}
