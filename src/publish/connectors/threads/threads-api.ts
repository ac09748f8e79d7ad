/**
 * One call to the Threads API with the profile's token, and every way a call fails turned into the
 * kinds the engine acts on (connectors/http.ts with the Meta hooks decides). The token goes as
 * `Authorization: Bearer`, never in a URL. A token Meta refuses (code 190, or a 401) is refreshed
 * once through the TokenKeeper and the call made again.
 */
import { Agent } from 'undici';
import type { FailedOutcome } from '../../../ports.js';
import type { ConnectorContext } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, unexpectedFailure } from '../http.js';
import { graphErrorOf } from '../meta/graph.js';
import { SignInExpired } from '../oauth-tokens.js';
import { THREADS_HOOKS } from './threads-account.js';

/** A non-2xx answer, thrown to the one place that classifies failures. */
export class ThreadsRefusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** Refused before anything is sent (or after Meta said why): what Threads cannot take, in our words. */
export class NotForThreads extends Error {}

/** What a call was: a container or a read creates nothing public (may be repeated). */
export type ThreadsStage = 'container' | 'read' | 'publish' | 'comment';

const WHAT: Record<ThreadsStage, string> = {
  container: 'media container',
  read: 'read of the container',
  publish: 'post',
  comment: 'reply',
};

export interface ThreadsToken {
  token(): Promise<string>;
  refused(token: string): Promise<string>;
}

export class ThreadsApi {
  private readonly agent: Agent;

  constructor(
    /** `https://graph.threads.net/v1.0`, or a stand-in's. */
    readonly base: string,
    readonly account: string,
    private readonly keeper: ThreadsToken,
    private readonly context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    private readonly known: () => string[],
  ) {
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
  }

  get secrets(): string[] {
    return this.known().filter((secret) => secret !== '');
  }

  /** `path` on the base: a urlencoded form, or a GET. Retried once with a renewed token after a 190. */
  async call(method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<PlatformAnswer> {
    let token = await this.keeper.token();
    let answer = await this.send(method, path, token, form);
    if (answer.status === 401 || graphErrorOf(answer)?.code === 190) {
      const renewed = await this.keeper.refused(token).catch(() => token);
      if (renewed !== token) {
        token = renewed;
        answer = await this.send(method, path, token, form);
      }
    }
    if (answer.status < 200 || answer.status > 299) throw new ThreadsRefusal(answer);
    return answer;
  }

  private send(method: 'GET' | 'POST', path: string, token: string, form?: URLSearchParams) {
    return callPlatform(`${this.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'user-agent': this.context.userAgent,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: form.toString() } : {}),
      timeoutMs: this.context.timeoutMs,
      dispatcher: this.agent,
      secrets: this.secrets,
    });
  }

  /** Every way a call can fail, as the kind the engine acts on. */
  failure(error: unknown, stage: ThreadsStage): FailedOutcome {
    const what = WHAT[stage];
    if (error instanceof NotForThreads) return { ok: false, kind: 'refused', reason: error.message };
    if (error instanceof SignInExpired) {
      return { ok: false, kind: 'reconnect', reason: hideSecrets(error.message, this.secrets) };
    }
    if (error instanceof ThreadsRefusal || error instanceof PlatformUnreachable) {
      return classifyHttpFailure(error instanceof ThreadsRefusal ? error.answer : error, THREADS_HOOKS, {
        what,
        address: this.base,
        account: this.account,
        nowMs: this.context.clock.now(),
        secrets: this.secrets,
        repeatable: stage === 'container' || stage === 'read',
      });
    }
    return unexpectedFailure(error, {
      platform: 'Threads',
      what,
      account: this.account,
      harmless: stage === 'container' || stage === 'read',
      secrets: this.secrets,
      log: this.context.log,
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
