/**
 * X's API calls: the shared PlatformApi (connectors/platform-api.ts) with X's hooks and the stages of a
 * delivery. A 401 means X did not process the request: the call is made once more with a renewed token.
 */
import type { ConnectorContext } from '../../connector.js';
import { type ApiToken, PlatformApi } from '../platform-api.js';
import { X_HOOKS } from './x-account.js';

/** What a call was: an upload or a read creates nothing public (an unanswered one may be repeated). */
export type XStage = 'upload' | 'read' | 'post' | 'reply';

export type XApi = PlatformApi<XStage>;

export function xApi(
  apiRoot: string,
  account: string,
  token: ApiToken,
  context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
  secrets: readonly string[],
): XApi {
  return new PlatformApi({
    base: apiRoot,
    account,
    token,
    context,
    secrets,
    hooks: X_HOOKS,
    stages: {
      upload: { what: 'media upload', repeatable: true },
      read: { what: 'read of recent posts', repeatable: true },
      post: { what: 'post' },
      reply: { what: 'reply' },
    },
  });
}
