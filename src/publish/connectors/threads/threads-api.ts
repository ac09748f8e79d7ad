/**
 * Threads' API calls: the shared PlatformApi (connectors/platform-api.ts) with Meta's hooks and the
 * stages of a delivery. The token goes as `Authorization: Bearer`, never in a URL. A token Meta refuses
 * (code 190, or a 401) is renewed once through the TokenKeeper and the call made again.
 */
import type { ConnectorContext } from '../../connector.js';
import type { PlatformAnswer } from '../../platform-http.js';
import { graphErrorOf } from '../meta/graph.js';
import { type ApiToken, PlatformApi } from '../platform-api.js';
import { THREADS_HOOKS } from './threads-account.js';

export {
  /** Refused before anything is sent (or after Meta said why): what Threads cannot take, in our words. */
  NotForPlatform as NotForThreads,
  /** A non-2xx answer, thrown to the one place that classifies failures. */
  PlatformRefusal as ThreadsRefusal,
} from '../platform-api.js';

/** What a call was: a container or a read creates nothing public (may be repeated). */
export type ThreadsStage = 'container' | 'read' | 'publish' | 'comment';

export class ThreadsApi extends PlatformApi<ThreadsStage> {
  constructor(
    /** `https://graph.threads.net/v1.0`, or a stand-in's. */
    base: string,
    account: string,
    token: ApiToken,
    context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    secrets: readonly string[],
  ) {
    super({
      base,
      account,
      token,
      context,
      secrets,
      hooks: THREADS_HOOKS,
      stages: {
        container: { what: 'media container', repeatable: true },
        read: { what: 'read of the container', repeatable: true },
        publish: { what: 'post' },
        comment: { what: 'reply' },
      },
      tokenRefused: (answer: PlatformAnswer) => answer.status === 401 || graphErrorOf(answer)?.code === 190,
    });
  }
}
