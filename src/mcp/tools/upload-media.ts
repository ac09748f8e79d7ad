import { Media, UploadMediaRequest } from '../../domain/schemas.js';
import { defineTool } from '../tool.js';

export const uploadMedia = defineTool({
  name: 'upload_media',
  title: 'Upload media',
  toolset: 'media',
  description:
    "Uploads one file to a brand's media library and returns its media id, for create_post's " +
    'media: [{"id": "<media id>"}]. Exactly one source: path (stdio only), url, or base64 with filename. ' +
    'png, jpg, mp4, mov or pdf, up to 100 MB; the type is read from the bytes. The same file returns the ' +
    'same id. A file already online may go to create_post as media: [{"url": "https://..."}] instead.',
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
