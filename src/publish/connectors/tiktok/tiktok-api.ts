/**
 * One call to TikTok's Content Posting API with the creator's token, and every way a call fails turned
 * into the kinds the engine acts on (connectors/http.ts with TIKTOK_HOOKS decides). JSON bodies, the
 * token as `Authorization: Bearer`; a token TikTok refuses (401 `access_token_invalid`) is refreshed
 * once through the TokenKeeper and the call made again. An answer whose envelope's `error.code` is not
 * `ok` is a refusal whatever its status. The chunk uploads go to the `upload_url` init answered (its
 * own upload token inside: a secret), without the bearer token.
 */
import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import type { FailedOutcome } from '../../../ports.js';
import type { ConnectorContext } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, unexpectedFailure } from '../http.js';
import { SignInExpired } from '../oauth-tokens.js';
import { TIKTOK_HOOKS, tiktokErrorOf } from './tiktok-failures.js';

/** A refusal (or an answer without TikTok's envelope), thrown to the one place that classifies failures. */
export class TikTokRefusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** Refused before anything is sent (or after TikTok said why): what TikTok cannot take, in our words. */
export class NotForTikTok extends Error {}

/**
 * What a call was. An init of a file upload and its chunks but the last create nothing public (may be
 * repeated: an unfinished upload is never posted); the last chunk and a photo's init post.
 */
export type TikTokStage = 'read' | 'init' | 'chunk' | 'post' | 'status';

const WHAT: Record<TikTokStage, string> = {
  read: 'read of the creator info',
  init: 'upload',
  chunk: 'video upload',
  post: 'post',
  status: 'read of the post status',
};

export interface TikTokToken {
  token(): Promise<string>;
  refused(token: string): Promise<string>;
}

export class TikTokApi {
  private readonly agent: Agent;
  /** Upload addresses in use (each holds an upload token). */
  private readonly uploadUrls: string[] = [];

  constructor(
    /** `https://open.tiktokapis.com`, or a stand-in's origin. */
    readonly base: string,
    readonly account: string,
    private readonly keeper: TikTokToken,
    private readonly context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    private readonly known: () => string[],
  ) {
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
  }

  get secrets(): string[] {
    return [...this.known(), ...this.uploadUrls].filter((secret) => secret !== '');
  }

  /** POSTs `body` (JSON) to `path`; the answer's `data`. Retried once with a renewed token after a 401. */
  async post(
    path: string,
    body?: unknown,
  ): Promise<{ data: Record<string, unknown>; answer: PlatformAnswer }> {
    let token = await this.keeper.token();
    let answer = await this.send(path, token, body);
    if (answer.status === 401 || tiktokErrorOf(answer)?.code === 'access_token_invalid') {
      const renewed = await this.keeper.refused(token).catch(() => token);
      if (renewed !== token) {
        token = renewed;
        answer = await this.send(path, token, body);
      }
    }
    const error = tiktokErrorOf(answer);
    if (answer.status < 200 || answer.status > 299 || !error || error.code !== 'ok') {
      throw new TikTokRefusal(answer);
    }
    const data = (answer.json as { data?: unknown }).data;
    return {
      data: typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {},
      answer,
    };
  }

  private send(path: string, token: string, body: unknown) {
    return callPlatform(`${this.base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json; charset=UTF-8',
        accept: 'application/json',
        'user-agent': this.context.userAgent,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeoutMs: this.context.timeoutMs,
      dispatcher: this.agent,
      secrets: this.secrets,
    });
  }

  /** The upload address init answered, kept among the secrets (it holds an upload token). */
  uploadUrl(url: unknown): string {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw new NotForTikTok('TikTok answered the upload without an upload address: post it again.');
    }
    // The address and its upload token, which a refusal may repeat on its own.
    const token = /[?&]upload_token=([^&#]+)/.exec(url)?.[1];
    this.uploadUrls.push(url, ...(token ? [token, decodeURIComponent(token)] : []));
    return url;
  }

  /** PUTs one chunk of a file upload; any 2xx is taken (206 for a chunk, 201 for the last one). */
  async put(url: string, headers: Record<string, string>, body: Readable): Promise<PlatformAnswer> {
    const answer = await callPlatform(url, {
      method: 'PUT',
      headers: { ...headers, 'user-agent': this.context.userAgent },
      body,
      timeoutMs: this.context.timeoutMs,
      dispatcher: this.agent,
      secrets: this.secrets,
    });
    if (answer.status < 200 || answer.status > 299) throw new TikTokRefusal(answer);
    return answer;
  }

  /** Every way a call can fail, as the kind the engine acts on. */
  failure(error: unknown, stage: TikTokStage): FailedOutcome {
    const what = WHAT[stage];
    const repeatable = stage !== 'post';
    if (error instanceof NotForTikTok) return { ok: false, kind: 'refused', reason: error.message };
    if (error instanceof SignInExpired) {
      return { ok: false, kind: 'reconnect', reason: hideSecrets(error.message, this.secrets) };
    }
    if (error instanceof TikTokRefusal || error instanceof PlatformUnreachable) {
      return classifyHttpFailure(error instanceof TikTokRefusal ? error.answer : error, TIKTOK_HOOKS, {
        what,
        address: this.base,
        account: this.account,
        nowMs: this.context.clock.now(),
        secrets: this.secrets,
        repeatable,
      });
    }
    return unexpectedFailure(error, {
      platform: 'TikTok',
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
