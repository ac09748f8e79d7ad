import { Media, UploadMediaRequest } from '../../domain/schemas.js';
import { defineTool } from '../tool.js';

export const uploadMedia = defineTool({
  name: 'upload_media',
  title: 'Upload media',
  description:
    "Uploads one file to a brand's media library and returns its media id, to pass to create_post as " +
    'media: [{"id": "<media id>"}]. Give exactly one source: path (a file on the machine running this ' +
    'server; stdio only), url (a public http(s) URL the server downloads) or base64 with filename (small ' +
    'files). Accepted: png, jpg/jpeg, mp4, mov, pdf, at most 100 MB; the type is read from the bytes, so ' +
    'names and extension case do not matter. The same file again returns the same id. For a file already ' +
    'online you may also skip this and pass media: [{"url": "https://..."}] to create_post.',
  input: UploadMediaRequest,
  output: Media,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handle(service, args, context) {
    const media = await service.uploadMedia(args, {
      signal: context.signal,
      onProgress: (bytes, total) => context.progress(bytes, total, 'Reading the file'),
    });
    return {
      body: { status: 'success', data: media },
      summary:
        `Uploaded media ${media.id} (${media.type}, ${media.size.toLocaleString('en-US')} bytes). ` +
        `Attach it with create_post media: [{"id": "${media.id}"}].`,
    };
  },
});
