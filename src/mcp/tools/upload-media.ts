import { Media, UploadMediaRequest } from '../../domain/schemas.js';
import { defineTool } from '../tool.js';

export const uploadMedia = defineTool({
  name: 'upload_media',
  title: 'Upload media',
  description:
    "Uploads one local file to a brand's media library and returns its media id, to pass to create_post as " +
    'media: [{"id": "<media id>"}]. Accepted: png, jpg/jpeg, mp4, mov, pdf (type read from the bytes, name ' +
    'and extension case do not matter), at most 100 MB. Uploading the same file again returns the same id. ' +
    'For a file already online, skip this and pass media: [{"url": "https://..."}] to create_post.',
  input: UploadMediaRequest,
  output: Media,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const media = await service.uploadMedia(args);
    return {
      body: { status: 'success', data: media },
      summary:
        `Uploaded media ${media.id} (${media.type}, ${media.size.toLocaleString('en-US')} bytes). ` +
        `Attach it with create_post media: [{"id": "${media.id}"}].`,
    };
  },
});
