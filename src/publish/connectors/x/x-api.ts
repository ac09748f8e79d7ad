/**
 * One call to X's API with the connection's access token, and every way a call fails turned into the
 * kinds the engine acts on. The token comes from the TokenKeeper (refreshed ahead of its expiry); a
 * 401 means X did not process the request, so the call is made once more with the token the keeper
 * gives after it (refreshed through the engine, or already refreshed by another call). A sign-in that
 * cannot be renewed is `reconnect` with the keeper's reason.
 */
import { Agent, type FormData } from 'undici';
import type { FailedOutcome } from '../../../ports.js';
import type { ConnectorContext } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, unexpectedFailure } from '../http.js';
import { SignInExpired, type TokenKeeper } from '../oauth-tokens.js';
import { X_HOOKS } from './x-account.js';

/** A non-2xx answer, thrown to the one place that classifies failures. */
export class XRefusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** What a call was: an upload or a read creates nothing public (an unanswered one may be repeated). */
export type XStage = 'upload' | 'read' | 'post' | 'reply';

const WHAT: Record<XStage, string> = {
  upload: 'media upload',
  read: 'read of recent posts',
  post: 'post',
  reply: 'reply',
};

export class XApi {
  private readonly agent: Agent;
  /** Every token this connection has used: none is ever repeated in a reason or a log line. */
  private readonly used = new Set<string>();

  constructor(
    readonly apiRoot: string,
    readonly account: string,
    private readonly keeper: Pick<TokenKeeper, 'token' | 'refused'>,
    private readonly context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    knownSecrets: readonly string[],
  ) {
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
    for (const secret of knownSecrets) if (secret) this.used.add(secret);
  }

  get secrets(): string[] {
    return [...this.used];
  }

  /** JSON, a query, or a multipart form (made again if the call is repeated after a 401). */
  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: () => string | FormData,
    headers: Record<string, string> = {},
  ): Promise<PlatformAnswer> {
    let token = await this.keeper.token();
    for (let attempt = 1; ; attempt++) {
      this.used.add(token);
      const answer = await callPlatform(`${this.apiRoot}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'user-agent': this.context.userAgent,
          ...headers,
        },
        ...(body === undefined ? {} : { body: body() }),
        timeoutMs: this.context.timeoutMs,
        dispatcher: this.agent,
        secrets: this.secrets,
      });
      if (answer.status === 401 && attempt === 1) {
        token = await this.keeper.refused(token);
        continue;
      }
      if (answer.status < 200 || answer.status > 299) throw new XRefusal(answer);
      return answer;
    }
  }

  /** JSON to `path`. */
  postJson(path: string, value: unknown): Promise<PlatformAnswer> {
    return this.call('POST', path, () => JSON.stringify(value), { 'content-type': 'application/json' });
  }

  /** Every way a call can fail, as the kind the engine acts on (connectors/http.ts decides). */
  failure(error: unknown, stage: XStage): FailedOutcome {
    const what = WHAT[stage];
    if (error instanceof SignInExpired) {
      return { ok: false, kind: 'reconnect', reason: hideSecrets(error.message, this.secrets) };
    }
    if (error instanceof XRefusal || error instanceof PlatformUnreachable) {
      return classifyHttpFailure(error instanceof XRefusal ? error.answer : error, X_HOOKS, {
        what,
        address: this.apiRoot,
        account: this.account,
        nowMs: this.context.clock.now(),
        secrets: this.secrets,
        repeatable: stage === 'upload' || stage === 'read',
      });
    }
    return unexpectedFailure(error, {
      platform: 'X',
      what,
      account: this.account,
      harmless: stage === 'upload' || stage === 'read',
      secrets: this.secrets,
      log: this.context.log,
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
