/**
 * TikTok's Content Posting API on the shared PlatformApi (connectors/platform-api.ts): JSON bodies, the
 * creator's token as `Authorization: Bearer`, renewed once when TikTok refuses it (401
 * `access_token_invalid`), every failure classified with TIKTOK_HOOKS by the stage of the delivery. An
 * answer whose envelope's `error.code` is not `ok` is a refusal whatever its status. The chunk uploads
 * go to the `upload_url` init answered (its own upload token inside: a secret), without the bearer token.
 */
import type { Readable } from 'node:stream';
import type { ConnectorContext } from '../../connector.js';
import { callPlatform, type PlatformAnswer } from '../../platform-http.js';
import { type ApiToken, NotForPlatform, PlatformApi, PlatformRefusal } from '../platform-api.js';
import { TIKTOK_HOOKS, tiktokErrorOf } from './tiktok-failures.js';

/** Refused before anything is sent (or after TikTok said why): what TikTok cannot take, in our words. */
export class NotForTikTok extends NotForPlatform {}

/**
 * What a call was. An init of a file upload and its chunks but the last create nothing public (may be
 * repeated: an unfinished upload is never posted); the last chunk and a photo's init post.
 */
export type TikTokStage = 'read' | 'init' | 'chunk' | 'post' | 'status';

const STAGES = {
  read: { what: 'read of the creator info', repeatable: true },
  init: { what: 'upload', repeatable: true },
  chunk: { what: 'video upload', repeatable: true },
  post: { what: 'post' },
  status: { what: 'read of the post status', repeatable: true },
} as const;

export class TikTokApi {
  private readonly api: PlatformApi<TikTokStage>;

  constructor(
    /** `https://open.tiktokapis.com`, or a stand-in's origin. */
    base: string,
    account: string,
    token: ApiToken,
    private readonly context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    secrets: readonly string[],
  ) {
    this.api = new PlatformApi({
      base,
      account,
      token,
      context,
      secrets,
      hooks: TIKTOK_HOOKS,
      stages: STAGES,
      tokenRefused: (answer) =>
        answer.status === 401 || tiktokErrorOf(answer)?.code === 'access_token_invalid',
    });
  }

  get secrets(): string[] {
    return this.api.secrets;
  }

  /** POSTs `body` (JSON; none for creator_info) to `path`; the envelope's `data`, and the answer. */
  async post(
    path: string,
    body?: unknown,
  ): Promise<{ data: Record<string, unknown>; answer: PlatformAnswer }> {
    const answer = await this.api.call(
      'POST',
      path,
      body === undefined ? undefined : () => JSON.stringify(body),
      { headers: { 'content-type': 'application/json; charset=UTF-8' } },
    );
    if (tiktokErrorOf(answer)?.code !== 'ok') throw new PlatformRefusal(answer);
    const data = (answer.json as { data?: unknown }).data;
    return {
      data: typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {},
      answer,
    };
  }

  /** The upload address init answered, kept among the secrets with its upload token. */
  uploadUrl(url: unknown): string {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw new NotForTikTok('TikTok answered the upload without an upload address: post it again.');
    }
    const token = /[?&]upload_token=([^&#]+)/.exec(url)?.[1];
    for (const secret of [url, token ?? '', token ? decodeURIComponent(token) : ''])
      this.api.keepSecret(secret);
    return url;
  }

  /** PUTs one chunk of a file upload; any 2xx is taken (206 for a chunk, 201 for the last one). */
  async put(url: string, headers: Record<string, string>, body: Readable): Promise<PlatformAnswer> {
    const answer = await callPlatform(url, {
      method: 'PUT',
      headers: { ...headers, 'user-agent': this.context.userAgent },
      body,
      timeoutMs: this.context.timeoutMs,
      secrets: this.secrets,
    });
    if (answer.status < 200 || answer.status > 299) throw new PlatformRefusal(answer);
    return answer;
  }

  failure(error: unknown, stage: TikTokStage) {
    return this.api.failure(error, stage);
  }

  close(): Promise<void> {
    return this.api.close();
  }
}
