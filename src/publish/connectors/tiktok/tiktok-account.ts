/**
 * A TikTok creator before any post: what a post may carry (capabilitiesOfTikTok), and the check
 * `connect tiktok` runs after the sign-in (verifyTikTok): the creator's open id
 * (`GET /v2/user/info/?fields=open_id,display_name`), their username and the privacy levels they offer
 * (`POST /v2/post/publish/creator_info/query/`). The channel keeps the privacy level chosen at the
 * sign-in (`settings.privacyLevel`), checked again against creator_info before each post.
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer } from '../../platform-http.js';
import type { ConnectInput } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';
import { TIKTOK_RECONNECT, tiktokSaid } from './tiktok-failures.js';
import { creatorInfoOf, tiktokOrigin } from './tiktok-oauth.js';

const MB = 1024 * 1024;

/** The privacy level a channel posts at when it names none: the one every creator offers. */
export const TIKTOK_DEFAULT_PRIVACY = 'SELF_ONLY';

/**
 * What a post may carry (…/content-posting-api-reference-direct-post and …-photo-post): one video or 1
 * to 35 photos (JPEG or WebP, 20 MB each, as integrators report), never mixed and never none; a video
 * title (the caption) of 2,200 UTF-16 units; videos up to 4 GB (MP4, MOV, WebM). No comment API: the
 * auto-comment is not posted (pre-flight says so).
 */
export function capabilitiesOfTikTok(): Capabilities {
  const base = PLATFORM_CAPABILITIES.TikTok;
  return {
    ...base,
    mediaTypes: [...new Set([...base.mediaTypes, 'image/webp', 'video/webm'])],
    maxImageBytes: 20 * MB,
    maxVideoBytes: 4 * 1024 * MB,
    comments: false,
  };
}

async function read(url: string, init: { method: 'GET' | 'POST' }, input: ConnectInput, token: string) {
  try {
    return await callPlatform(url, {
      method: init.method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'user-agent': input.userAgent,
        ...(init.method === 'POST' ? { 'content-type': 'application/json; charset=UTF-8' } : {}),
      },
      timeoutMs: input.timeoutMs,
      secrets: [token],
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not reach ${url} (${hideSecrets(detail, [token])}): check --api-root.`);
  }
}

const refused = (answer: PlatformAnswer, token: string) =>
  new Error(
    `TikTok did not accept the sign-in (${hideSecrets(tiktokSaid(answer), [token])}): run ${TIKTOK_RECONNECT} again and approve user.info.basic, video.publish and video.upload.`,
  );

/**
 * Checks the sign-in: the creator the token is for and the privacy levels they offer; `input.account`
 * is the level chosen (the sign-in's identity). Stores the tokens. Rejects with an Error that says what
 * to fix, never a token.
 */
export async function verifyTikTok(input: ConnectInput): Promise<VerifiedConnection> {
  const apiRoot = tiktokOrigin(input.endpoint);
  const token = input.tokens?.accessToken ?? input.secret;
  const user = await read(
    `${apiRoot}/v2/user/info/?fields=open_id,display_name`,
    { method: 'GET' },
    input,
    token,
  );
  const found = ((user.json ?? {}) as { data?: { user?: { open_id?: unknown } } }).data?.user;
  if (user.status !== 200 || typeof found?.open_id !== 'string' || !found.open_id) throw refused(user, token);
  const creator = await read(
    `${apiRoot}/v2/post/publish/creator_info/query/`,
    { method: 'POST' },
    input,
    token,
  );
  const info = creator.status === 200 ? creatorInfoOf(creator) : undefined;
  if (!info) throw refused(creator, token);
  const privacyLevel = input.account ?? TIKTOK_DEFAULT_PRIVACY;
  if (!info.privacyLevels.includes(privacyLevel)) {
    throw new Error(
      `@${info.username} does not offer the privacy level ${privacyLevel}: give --account one of ${info.privacyLevels.join(', ')}.`,
    );
  }
  const tokens = input.tokens ?? { accessToken: token };
  return {
    kind: 'tiktok',
    account: `@${info.username}`,
    accountId: found.open_id,
    endpoint: apiRoot,
    profileUrl: `https://www.tiktok.com/@${info.username}`,
    settings: { privacyLevel },
    capabilities: capabilitiesOfTikTok(),
    secret: tokensSecret(tokens),
  };
}
