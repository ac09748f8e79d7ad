/**
 * How the Instagram stand-in (instagram-server.ts) says no: Meta's error envelope (graphError, shared
 * with the Threads stand-in), a bad parameter (code 100, with Meta's subcodes where it has them), and
 * the kit's scripted trouble in Meta's words (an Instagram account's business-use-case limit, 80002,
 * with X-Business-Use-Case-Usage).
 */
import type { PlatformErrors } from './fake-platform/kit.js';
import { graphError } from './threads-server.js';

export { graphError };

export const invalid = (message: string, subcode?: number) =>
  graphError(100, `(#100) ${message}`, subcode === undefined ? {} : { subcode });

/** Meta's envelope for the kit's scripted trouble; throttling is the Instagram account's BUC limit. */
export const INSTAGRAM_ERRORS: PlatformErrors = {
  failure: (status, said) =>
    graphError(
      status >= 500 ? 2 : 100,
      said ?? 'An unexpected error has occurred. Please retry your request later.',
      {
        status,
      },
    ),
  rateLimited: ({ retryAfterSeconds }) => {
    const usage = {
      type: 'instagram',
      call_count: 100,
      total_cputime: 1,
      total_time: 1,
      estimated_time_to_regain_access: 60,
    };
    return graphError(
      80_002,
      'There have been too many calls to this Instagram account. Wait a bit and try again.',
      {
        headers: {
          'x-business-use-case-usage': JSON.stringify({ app: [usage] }),
          ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
        },
      },
    );
  },
  unauthorized: (problem) =>
    problem === 'revoked'
      ? graphError(190, 'Error validating access token: The user has not authorized application.', {
          subcode: 458,
        })
      : graphError(190, 'Invalid OAuth access token - Cannot parse access token'),
  notFound: (request) => graphError(100, `(#100) Unknown path components: ${request.path}`),
};

export const DOWNLOAD_FAILED =
  'Media download has failed. The media URI doesn’t meet our requirements. (2207052)';
