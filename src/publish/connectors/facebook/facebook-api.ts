/**
 * One call to the Graph API with the Page's token, and every way a call fails turned into the kinds
 * the engine acts on (connectors/http.ts with the Meta hooks decides). The token is sent as
 * `Authorization: Bearer` (never in a URL, where a proxy's log would keep it). A Page token does not
 * expire and Meta has no refresh token: a token Meta refuses (code 190) asks for a new sign-in.
 */
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { Agent, type FormData } from 'undici';
import type { FailedOutcome } from '../../../ports.js';
import type { ConnectorContext, MediaSource } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer, PlatformUnreachable } from '../../platform-http.js';
import { classifyHttpFailure, unexpectedFailure } from '../http.js';
import { SignInExpired } from '../oauth-tokens.js';
import { FACEBOOK_HOOKS } from './facebook-account.js';

/** A non-2xx answer, thrown to the one place that classifies failures. */
export class GraphRefusal extends Error {
  constructor(readonly answer: PlatformAnswer) {
    super(`HTTP ${answer.status}`);
  }
}

/** Refused before anything is sent: what Facebook cannot take, said in our words. */
export class NotForFacebook extends Error {}

/** What a call was: an unpublished upload or a read creates nothing public (may be repeated). */
export type FacebookStage = 'upload' | 'video' | 'read' | 'post' | 'comment';

const WHAT: Record<FacebookStage, string> = {
  upload: 'photo upload',
  video: 'video upload',
  read: 'read of the video',
  post: 'post',
  comment: 'comment',
};

export class FacebookApi {
  private readonly agent: Agent;
  private readonly known: string[];

  constructor(
    /** `https://graph.facebook.com/v25.0`, or a stand-in's. */
    readonly base: string,
    /** Where videos go: `https://graph-video.facebook.com/v25.0`, or the base. */
    readonly videoBase: string,
    /** Where the bytes of Reels and video Stories go: `https://rupload.facebook.com/video-upload/v25.0`. */
    readonly uploadBase: string,
    readonly account: string,
    private readonly token: () => Promise<string>,
    private readonly context: Pick<ConnectorContext, 'clock' | 'log' | 'timeoutMs' | 'userAgent'>,
    secrets: readonly string[],
  ) {
    this.agent = new Agent({ connect: { timeout: context.timeoutMs } });
    this.known = secrets.filter((secret) => secret !== '');
  }

  get secrets(): string[] {
    return this.known;
  }

  /** `path` on the base (or an absolute URL): a form (urlencoded or multipart), or a GET. */
  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: () => URLSearchParams | FormData,
  ): Promise<PlatformAnswer> {
    const token = await this.token();
    const url = /^https?:\/\//.test(path) ? path : `${this.base}${path}`;
    const form = body?.();
    const answer = await callPlatform(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'user-agent': this.context.userAgent,
        ...(form instanceof URLSearchParams ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form === undefined ? {} : { body: form instanceof URLSearchParams ? form.toString() : form }),
      timeoutMs: this.context.timeoutMs,
      dispatcher: this.agent,
      secrets: this.secrets,
    });
    if (answer.status < 200 || answer.status > 299) throw new GraphRefusal(answer);
    return answer;
  }

  /**
   * A file's bytes to Meta's upload host (the Reels guide's upload step): `Authorization: OAuth`, the
   * whole file from `offset: 0` with its `file_size`, streamed from disk (never whole in memory).
   */
  async upload(url: string, file: MediaSource): Promise<PlatformAnswer> {
    const token = await this.token();
    const blob = await file.blob();
    const answer = await callPlatform(url, {
      method: 'POST',
      headers: {
        authorization: `OAuth ${token}`,
        offset: '0',
        file_size: String(file.size),
        'content-type': 'application/octet-stream',
        accept: 'application/json',
        'user-agent': this.context.userAgent,
      },
      body: Readable.fromWeb(blob.stream() as ReadableStream<Uint8Array>),
      timeoutMs: this.context.timeoutMs,
      dispatcher: this.agent,
      secrets: this.secrets,
    });
    if (answer.status < 200 || answer.status > 299) throw new GraphRefusal(answer);
    return answer;
  }

  /** Every way a call can fail, as the kind the engine acts on. */
  failure(error: unknown, stage: FacebookStage): FailedOutcome {
    const what = WHAT[stage];
    if (error instanceof NotForFacebook) return { ok: false, kind: 'refused', reason: error.message };
    if (error instanceof SignInExpired) {
      return { ok: false, kind: 'reconnect', reason: hideSecrets(error.message, this.secrets) };
    }
    if (error instanceof GraphRefusal || error instanceof PlatformUnreachable) {
      return classifyHttpFailure(error instanceof GraphRefusal ? error.answer : error, FACEBOOK_HOOKS, {
        what,
        address: this.base,
        account: this.account,
        nowMs: this.context.clock.now(),
        secrets: this.secrets,
        repeatable: stage === 'upload' || stage === 'video' || stage === 'read',
      });
    }
    return unexpectedFailure(error, {
      platform: 'Facebook',
      what,
      account: this.account,
      harmless: stage === 'upload' || stage === 'video' || stage === 'read',
      secrets: this.secrets,
      log: this.context.log,
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
