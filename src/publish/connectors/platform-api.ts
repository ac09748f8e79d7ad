/**
 * One call to an OAuth platform's API with the connection's access token, and every way a call fails
 * turned into the kinds the engine acts on, shared by the connectors that sign in with OAuth. The token
 * comes from the connection's TokenKeeper (refreshed ahead of its expiry); when the platform says it
 * refused the token (a 401, Meta's code 190), the call is made once more with the token the keeper gives
 * after it (refreshed through the engine, or by another call meanwhile). A sign-in that cannot be
 * renewed is `reconnect` with the keeper's reason.
 *
 * What is the platform's own is given: its hooks (connectors/http.ts classifies with them), what each
 * stage of a delivery is called and whether repeating it is harmless (an upload, a read: nothing public).
 */
import type { Readable } from 'node:stream';
import { Agent, type FormData } from 'undici';
import type { FailedOutcome } from '../../ports.js';
import type { ConnectorContext } from '../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer, PlatformUnreachable } from '../platform-http.js';
import { classifyHttpFailure, type PlatformHooks, unexpectedFailure } from './http.js';
import { SignInExpired } from './oauth-tokens.js';

/** A non-2xx answer, thrown to the one place that classifies failures. */
export class PlatformRefusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** Refused before anything is sent (or after the platform said why): what it cannot take, in our words. */
export class NotForPlatform extends Error {}

/** Where the calls get their token: a TokenKeeper, or a token that does not expire. */
export interface ApiToken {
  token(): Promise<string>;
  /** The token to use after the platform refused `token`; absent: nothing to renew. */
  refused?(token: string): Promise<string>;
}

/** A stage of a delivery: what it is called in reasons, and whether an unanswered call may be repeated. */
export interface ApiStage {
  what: string;
  /** It creates nothing public (an upload, a read): an unanswered request is transient, not unknown. */
  repeatable?: boolean;
}

export interface PlatformApiOptions<Stage extends string> {
  /** The API root every path is on: `https://mybusiness.googleapis.com`, or a stand-in's. */
  base: string;
  /** Whom the platform limits or refuses, for reasons: `@name`, a location's title. */
  account: string;
  token: ApiToken;
  context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>;
  /** Secrets known before any call (the stored tokens, the app's secret): never in a reason. */
  secrets: readonly string[];
  hooks: PlatformHooks;
  stages: Record<Stage, ApiStage>;
  /** Whether an answer refuses the token (then renewed once and the call repeated). Default: 401. */
  tokenRefused?(answer: PlatformAnswer): boolean;
}

/** What a request sends: JSON or form text, a urlencoded form, a multipart form, bytes (or a stream). */
export type ApiBody = string | URLSearchParams | FormData | Uint8Array | Readable;

/** How the token goes: `Authorization: Bearer <token>` (OAuth 2), or the scheme a host wants (`OAuth`). */
export interface CallOptions {
  headers?: Record<string, string>;
  scheme?: 'Bearer' | 'OAuth';
}

export class PlatformApi<Stage extends string> {
  private readonly agent: Agent;
  /** Every token and secret this connection has used: none is ever repeated in a reason or a log line. */
  private readonly used = new Set<string>();

  constructor(private readonly options: PlatformApiOptions<Stage>) {
    this.agent = new Agent({ connect: { timeout: options.context.timeoutMs } });
    for (const secret of options.secrets) if (secret) this.used.add(secret);
  }

  get base(): string {
    return this.options.base;
  }

  get account(): string {
    return this.options.account;
  }

  get secrets(): string[] {
    return [...this.used];
  }

  /** A secret learnt from an answer (an upload address's token): never repeated in a reason either. */
  keepSecret(secret: string): void {
    if (secret) this.used.add(secret);
  }

  /**
   * `path` on the base, or an absolute URL; the body is made again if the call is repeated after a
   * refused token (a multipart form is read once).
   */
  async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
    path: string,
    body?: () => ApiBody,
    { headers = {}, scheme = 'Bearer' }: CallOptions = {},
  ): Promise<PlatformAnswer> {
    const url = /^https?:\/\//.test(path) ? path : `${this.options.base}${path}`;
    const refusedToken = this.options.tokenRefused ?? ((answer: PlatformAnswer) => answer.status === 401);
    let token = await this.options.token.token();
    for (let attempt = 1; ; attempt++) {
      this.used.add(token);
      const made = body?.();
      const answer = await callPlatform(url, {
        method,
        headers: {
          authorization: `${scheme} ${token}`,
          accept: 'application/json',
          'user-agent': this.options.context.userAgent,
          ...(made instanceof URLSearchParams ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...headers,
        },
        ...(made === undefined ? {} : { body: made instanceof URLSearchParams ? made.toString() : made }),
        timeoutMs: this.options.context.timeoutMs,
        dispatcher: this.agent,
        secrets: this.secrets,
      });
      if (attempt === 1 && this.options.token.refused && refusedToken(answer)) {
        const renewed = await this.options.token.refused(token);
        if (renewed !== token) {
          token = renewed;
          continue;
        }
      }
      if (answer.status < 200 || answer.status > 299) throw new PlatformRefusal(answer);
      return answer;
    }
  }

  /** JSON to `path`. */
  json(method: 'POST' | 'PUT' | 'PATCH', path: string, value: unknown): Promise<PlatformAnswer> {
    return this.call(method, path, () => JSON.stringify(value), {
      headers: { 'content-type': 'application/json' },
    });
  }

  /** Every way a call of `stage` can fail, as the kind the engine acts on (connectors/http.ts decides). */
  failure(error: unknown, stage: Stage): FailedOutcome {
    const { what, repeatable = false } = this.options.stages[stage];
    if (error instanceof NotForPlatform) return { ok: false, kind: 'refused', reason: error.message };
    if (error instanceof SignInExpired) {
      return { ok: false, kind: 'reconnect', reason: hideSecrets(error.message, this.secrets) };
    }
    if (error instanceof PlatformRefusal || error instanceof PlatformUnreachable) {
      return classifyHttpFailure(
        error instanceof PlatformRefusal ? error.answer : error,
        this.options.hooks,
        {
          what,
          address: this.options.base,
          account: this.options.account,
          nowMs: this.options.context.clock.now(),
          secrets: this.secrets,
          repeatable,
        },
      );
    }
    return unexpectedFailure(error, {
      platform: this.options.hooks.name,
      what,
      account: this.options.account,
      harmless: repeatable,
      secrets: this.secrets,
      log: this.options.context.log,
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
