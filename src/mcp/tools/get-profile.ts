import { GetProfileRequest, User } from '../../domain/schemas.js';
import { defineTool } from '../tool.js';

export const getProfile = defineTool({
  name: 'get_profile',
  title: 'Get profile',
  toolset: 'workspace',
  description:
    "Returns the acting user's profile (id, name, joinedAt, timezone). Use it to check the connection works. " +
    "Note: post times are read in each BRAND's timezone (list_brands), not in the user's timezone shown here.",
  input: GetProfileRequest,
  output: User,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const user = await service.getProfile(args);
    return {
      body: { status: 'success', data: user },
      summary: `${user.name} (user ${user.id}), timezone ${user.timezone}, joined ${user.joinedAt}.`,
    };
  },
});
