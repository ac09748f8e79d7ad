/**
 * One call to Pinterest's API v5 with the board's token, and every way a call fails turned into the
 * kinds the engine acts on (connectors/http.ts with PINTEREST_HOOKS decides). The token goes as
 * `Authorization: Bearer`; a 401 gets one retry with the token refreshed through the TokenKeeper.
 * The video upload goes to the Amazon S3 address Pinterest hands out, without the token.
 */
import type { Readable } from 'node:stream';
import { Agent, type FormData } from 'undici';
import type { FailedOutcome } from '../../../ports.js';
import type { ConnectorContext } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, unexpectedFailure } from '../http.js';
import { SignInExpired } from '../oauth-tokens.js';
import { PINTEREST_HOOKS } from './pinterest-failures.js';
import { NotForPinterest } from './pinterest-pin.js';

/** A non-2xx answer, thrown to the one place that classifies failures. */
export class PinterestRefusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** An answer without what the API promises (no id): thrown as a 502, transient. */
export class Malformed extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`Pinterest answered ${answer.status} without what its API promises`);
  }
}

/** What a call was: a registration, an upload or a read creates nothing public (may be repeated). */
export type PinterestStage = 'register' | 'upload' | 'read' | 'lookup' | 'pin' | 'comment';

const WHAT: Record<PinterestStage, string> = {
  register: 'video registration',
  upload: 'video upload',
  read: 'read of the video',
  lookup: "read of the board's pins",
  pin: 'pin',
  comment: 'comment',
};

export interface PinterestToken {
  token(): Promise<string>;
  refused(token: string): Promise<string>;
}

/** A request body: JSON text, or a JSON stream of known length made anew for each try. */
export type PinterestBody = { json: unknown } | { length: number; stream: () => Readable };

/** The least speed assumed of a video upload: its deadline grows by a second per MiB. */
const UPLOAD_BYTES_PER_SECOND = 1024 * 1024;

export class PinterestApi {
  private readonly agent: Agent;

  constructor(
    /** `https://api.pinterest.com`, or a stand-in's. */
    readonly root: string,
    /** The board, as reasons name it. */
    readonly account: string,
    private readonly keeper: PinterestToken,
    private readonly context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    private readonly known: () => string[],
  ) {
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
  }

  get secrets(): string[] {
    return this.known().filter((secret) => secret !== '');
  }

  /** `path` on the API root, with the token; retried once with a renewed token after a 401. */
  async call(method: 'GET' | 'POST', path: string, body?: PinterestBody): Promise<PlatformAnswer> {
    let token = await this.keeper.token();
    let answer = await this.send(method, path, token, body);
    if (answer.status === 401) {
      const renewed = await this.keeper.refused(token).catch((error: unknown) => {
        if (error instanceof SignInExpired) return token;
        throw error;
      });
      if (renewed !== token) {
        token = renewed;
        answer = await this.send(method, path, token, body);
      }
    }
    if (answer.status < 200 || answer.status > 299) throw new PinterestRefusal(answer);
    return answer;
  }

  private send(method: 'GET' | 'POST', path: string, token: string, body?: PinterestBody) {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'user-agent': this.context.userAgent,
    };
    let payload: string | Readable | undefined;
    let timeoutMs = this.context.timeoutMs;
    if (body && 'json' in body) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body.json);
    } else if (body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.length);
      payload = body.stream();
      timeoutMs += Math.ceil((body.length / UPLOAD_BYTES_PER_SECOND) * 1000);
    }
    return callPlatform(`${this.root}${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      timeoutMs,
      dispatcher: this.agent,
      secrets: this.secrets,
    });
  }

  /**
   * The video's bytes to the upload address (S3's presigned POST: the `upload_parameters` as fields,
   * then the file as `file`), streamed from disk. S3 answers 204 No Content.
   */
  async upload(url: string, form: () => Promise<FormData>, size: number): Promise<void> {
    const answer = await callPlatform(url, {
      method: 'POST',
      headers: { 'user-agent': this.context.userAgent },
      body: await form(),
      timeoutMs: this.context.timeoutMs + Math.ceil((size / UPLOAD_BYTES_PER_SECOND) * 1000),
      dispatcher: this.agent,
      secrets: this.secrets,
    });
    if (answer.status < 200 || answer.status > 299) throw new PinterestRefusal(answer);
  }

  /** Every way a call can fail, as the kind the engine acts on. */
  failure(error: unknown, stage: PinterestStage): FailedOutcome {
    const what = WHAT[stage];
    const repeatable = stage !== 'pin' && stage !== 'comment';
    if (error instanceof NotForPinterest) return { ok: false, kind: 'refused', reason: error.message };
    if (error instanceof SignInExpired) {
      return { ok: false, kind: 'reconnect', reason: hideSecrets(error.message, this.secrets) };
    }
    if (
      error instanceof PinterestRefusal ||
      error instanceof Malformed ||
      error instanceof PlatformUnreachable
    ) {
      const failure =
        error instanceof PlatformUnreachable
          ? error
          : error instanceof Malformed
            ? { ...error.answer, status: 502 }
            : error.answer;
      return classifyHttpFailure(failure, PINTEREST_HOOKS, {
        what,
        address: this.root,
        account: this.account,
        nowMs: this.context.clock.now(),
        secrets: this.secrets,
        repeatable,
      });
    }
    return unexpectedFailure(error, {
      platform: 'Pinterest',
      what,
      account: this.account,
      harmless: repeatable,
      secrets: this.secrets,
      log: this.context.log,
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
