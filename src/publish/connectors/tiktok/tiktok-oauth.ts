/**
 * Signing in to TikTok (Login Kit, developers.tiktok.com/doc/login-kit-web and
 * …/oauth-user-access-token-management) with the operator's app: its client key and secret, given as
 * the app credentials of TIKTOK (src/oauth-apps.ts). TikTok names the client id `client_key`, in the
 * authorization address and in every token request: the hooks send it under that name.
 *
 * - The authorization page is `https://www.tiktok.com/v2/auth/authorize/` (scopes comma separated);
 *   the token endpoint `https://open.tiktokapis.com/v2/oauth/token/` (a form: client_key,
 *   client_secret, code, grant_type, redirect_uri, code_verifier). A test or a proxy given as
 *   `--auth-root` serves both paths on its one origin.
 * - PKCE: TikTok requires `code_verifier` of desktop and mobile apps and ignores it for web apps; the
 *   challenge is sent as RFC 7636's S256 (base64url). Integrators report that the desktop flow wants the
 *   SHA-256 in hex instead: unconfirmed in TikTok's pages (docs/platforms.md).
 * - The access token lasts 24 hours, the refresh token 365 days; a refresh may answer a new refresh
 *   token, which replaces the old one.
 * - The identities of a sign-in are the privacy levels the creator offers (creator_info): TikTok wants
 *   the user to choose one, with no default (its UX guidelines), so `--account` (or the question asked)
 *   picks the level the channel posts at.
 *
 * The client secret, the code, the verifier and the tokens never appear in an error message.
 */
import { callPlatform, hideSecrets, type PlatformAnswer } from '../../platform-http.js';
import type { OAuthHooks, OAuthHttp, OAuthIdentity, OAuthTokens } from '../module.js';
import { callTokenEndpoint } from '../token-endpoint.js';
import { tiktokSaid } from './tiktok-failures.js';

/**
 * What the connector needs (…/doc/scopes-overview): `user.info.basic` (the open id),
 * `video.publish` (Direct Post and creator_info), `video.upload` (uploads to the creator's inbox).
 */
export const TIKTOK_SCOPES = ['user.info.basic', 'video.publish', 'video.upload'] as const;

export const TIKTOK_AUTH_ROOT = 'https://www.tiktok.com';
export const TIKTOK_API_ROOT = 'https://open.tiktokapis.com';

const AUTHORIZE_PATH = '/v2/auth/authorize/';
const TOKEN_PATH = '/v2/oauth/token/';

/** The origin of `root`; throws a plain message when it is not a URL. */
export function tiktokOrigin(root: string): string {
  try {
    return new URL(root.trim()).origin;
  } catch {
    throw new Error(`"${root}" is not a TikTok address: give a URL such as ${TIKTOK_API_ROOT}.`);
  }
}

/** open.tiktokapis.com's token endpoint for TikTok's own auth root, else the same path on the auth root. */
export function tiktokTokenUrl(authRoot: string): string {
  const origin = tiktokOrigin(authRoot);
  const own = origin === TIKTOK_AUTH_ROOT || origin === 'https://tiktok.com';
  return `${own ? TIKTOK_API_ROOT : origin}${TOKEN_PATH}`;
}

/** One POST of the token endpoint (the app's credentials in the form, as `client_key`); the tokens. */
async function requestTokens(
  authRoot: string,
  form: Record<string, string>,
  http: Partial<OAuthHttp>,
  secrets: string[],
  refusal: (said: string) => string,
): Promise<OAuthTokens> {
  const tokens = await callTokenEndpoint({
    platform: 'TikTok',
    url: tiktokTokenUrl(authRoot),
    form,
    http,
    secrets,
    checkApp:
      'check the Client key and Client secret of the app on https://developers.tiktok.com/apps, as given to the program.',
    refusal,
  });
  // Comma separated at TikTok; space separated in what we keep.
  return tokens.scope === undefined
    ? tokens
    : {
        ...tokens,
        scope: tokens.scope
          .split(/[\s,]+/)
          .filter(Boolean)
          .join(' '),
      };
}

/** What creator_info says of the creator: who they are, and what they may post. */
export interface CreatorInfo {
  username: string;
  nickname: string;
  privacyLevels: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoSeconds: number | null;
}

/** Reads `POST /v2/post/publish/creator_info/query/` (…/content-posting-api-reference-query-creator-info). */
export function creatorInfoOf(answer: PlatformAnswer): CreatorInfo | undefined {
  const data = ((answer.json ?? {}) as { data?: Record<string, unknown> }).data;
  if (!data || typeof data.creator_username !== 'string') return undefined;
  const levels = Array.isArray(data.privacy_level_options)
    ? data.privacy_level_options.filter((level): level is string => typeof level === 'string')
    : [];
  const seconds = Number(data.max_video_post_duration_sec);
  return {
    username: data.creator_username,
    nickname: typeof data.creator_nickname === 'string' ? data.creator_nickname : data.creator_username,
    privacyLevels: levels,
    commentDisabled: data.comment_disabled === true,
    duetDisabled: data.duet_disabled === true,
    stitchDisabled: data.stitch_disabled === true,
    maxVideoSeconds: Number.isFinite(seconds) && seconds > 0 ? seconds : null,
  };
}

/** How each privacy level reads in the list of choices. */
const LEVEL_NAMES: Record<string, string> = {
  PUBLIC_TO_EVERYONE: 'everyone',
  MUTUAL_FOLLOW_FRIENDS: 'friends (followers they follow back)',
  FOLLOWER_OF_CREATOR: 'followers',
  SELF_ONLY: 'only the creator (the only level an app TikTok has not audited may post at)',
};

export const tiktokOAuth: OAuthHooks = {
  scopes: TIKTOK_SCOPES,
  pkce: true,

  authorizationUrl({ endpoint, clientId, redirectUri, state, codeChallenge, scopes }) {
    const url = new URL(`${tiktokOrigin(endpoint)}${AUTHORIZE_PATH}`);
    url.search = new URLSearchParams({
      client_key: clientId,
      response_type: 'code',
      scope: scopes.join(','),
      redirect_uri: redirectUri,
      state,
      ...(codeChallenge ? { code_challenge: codeChallenge, code_challenge_method: 'S256' } : {}),
    }).toString();
    return url.href;
  },

  exchangeCode({ endpoint, code, codeVerifier, redirectUri, clientId, clientSecret, ...http }) {
    return requestTokens(
      endpoint,
      {
        client_key: clientId,
        client_secret: clientSecret,
        code,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
      },
      http,
      [clientSecret, code, codeVerifier ?? ''],
      (said) =>
        `TikTok did not accept the sign-in's code (${said}): codes work once and for minutes only; sign in again, with the redirect URI registered in the app's Login Kit settings exactly as given.`,
    );
  },

  /** A new access token (24 hours); the refresh token answered (365 days) replaces the old one. */
  refresh({ endpoint, refreshToken, clientId, clientSecret, ...http }) {
    return requestTokens(
      endpoint,
      {
        client_key: clientId,
        client_secret: clientSecret,
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      },
      http,
      [clientSecret, refreshToken],
      (said) => `TikTok refused the refresh token (${said})`,
    );
  },

  /** The privacy levels the creator offers now: the channel posts at the one chosen. */
  async identities({ endpoint, accessToken, ...http }): Promise<OAuthIdentity[]> {
    const url = `${tiktokOrigin(endpoint)}/v2/post/publish/creator_info/query/`;
    let answer: PlatformAnswer;
    try {
      answer = await callPlatform(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json; charset=UTF-8',
          'user-agent': http.userAgent,
        },
        timeoutMs: http.timeoutMs,
        secrets: [accessToken],
      });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new Error(`Could not reach ${url} (${hideSecrets(detail, [accessToken])}): check --api-root.`);
    }
    const info = answer.status === 200 ? creatorInfoOf(answer) : undefined;
    if (!info || info.privacyLevels.length === 0) {
      throw new Error(
        `TikTok did not say what the creator may post (${hideSecrets(tiktokSaid(answer), [accessToken])}): run connect tiktok again and approve video.publish; the app needs the Content Posting API with Direct Post.`,
      );
    }
    return info.privacyLevels.map((level) => ({
      id: level,
      name: `@${info.username}, seen by ${LEVEL_NAMES[level] ?? level}`,
      kind: 'privacy level',
    }));
  },
};
