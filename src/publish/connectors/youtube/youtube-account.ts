/**
 * A YouTube channel before any post: what a post may carry (capabilitiesOfYouTube), the channels a
 * Google sign-in may post as (`GET /youtube/v3/channels?part=snippet&mine=true`: the channel of the
 * approval; a Google account with Brand Accounts picks one on Google's consent screen), and the check
 * `connect youtube` runs after the sign-in (verifyYouTube): the channel named by `--account` (its id
 * `UC…` or its title), or the only one.
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer } from '../../platform-http.js';
import { googleSaid } from '../google/google-errors.js';
import type { ConnectInput, OAuthHttp, OAuthIdentity } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';

/**
 * YouTube's limits: one video a post (developers.google.com/youtube/v3/docs/videos/insert: any video/*
 * type, up to 256 GB), a description of 5,000 bytes (the pre-flight counts them: youtube-rules.ts).
 */
export function capabilitiesOfYouTube(): Capabilities {
  return { ...PLATFORM_CAPABILITIES.YouTube };
}

export interface YouTubeChannel extends OAuthIdentity {
  /** `@handle`, when the channel has one. */
  handle: string | null;
}

/** The channels of the sign-in (`mine=true`). Rejects with what to do, never with the token. */
export async function channelsOf(
  apiRoot: string,
  token: string,
  http: Partial<OAuthHttp>,
): Promise<YouTubeChannel[]> {
  const root = apiRoot.replace(/\/+$/, '');
  let answer: PlatformAnswer;
  try {
    answer = await callPlatform(`${root}/youtube/v3/channels?part=snippet&mine=true&maxResults=50`, {
      method: 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'user-agent': http.userAgent ?? 'social-publisher-mcp',
      },
      timeoutMs: http.timeoutMs ?? 15_000,
      secrets: [token],
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not reach YouTube at ${root} (${hideSecrets(detail, [token])}): check --api-root.`,
    );
  }
  const said = hideSecrets(googleSaid(answer), [token]);
  if (answer.status === 401 || answer.status === 403) {
    throw new Error(
      `YouTube refused the sign-in (${said}): enable the YouTube Data API v3 in the Google app's project, approve the YouTube permission, and run connect youtube again.`,
    );
  }
  const items = ((answer.json ?? {}) as { items?: unknown }).items;
  if (answer.status !== 200 || (items !== undefined && !Array.isArray(items))) {
    throw new Error(
      `${root} did not answer like YouTube (channels: ${said}): check --api-root, or try again.`,
    );
  }
  const channels: YouTubeChannel[] = [];
  for (const item of (items ?? []) as {
    id?: unknown;
    snippet?: { title?: unknown; customUrl?: unknown };
  }[]) {
    if (typeof item?.id !== 'string' || !item.id) continue;
    const title =
      typeof item.snippet?.title === 'string' && item.snippet.title ? item.snippet.title : item.id;
    const custom = item.snippet?.customUrl;
    const handle =
      typeof custom === 'string' && custom ? (custom.startsWith('@') ? custom : `@${custom}`) : null;
    channels.push({ id: item.id, name: title, kind: 'channel', handle });
  }
  return channels;
}

/**
 * Checks the sign-in's token and picks the channel: `--account` by id or title, else the only one.
 * Rejects with an Error that says what to fix, never with a token.
 */
export async function verifyYouTube(input: ConnectInput): Promise<VerifiedConnection> {
  const apiRoot = input.endpoint.replace(/\/+$/, '');
  const token = input.tokens?.accessToken ?? input.secret;
  const channels = await channelsOf(apiRoot, token, input);
  if (channels.length === 0) {
    throw new Error(
      'The Google account has no YouTube channel: create one on youtube.com (or pick the Brand Account that has it on the consent screen), then run connect youtube again.',
    );
  }
  const wanted = input.account?.trim();
  const channel = wanted
    ? (channels.find((candidate) => candidate.id === wanted) ??
      channels.find((candidate) => candidate.name.toLowerCase() === wanted.toLowerCase()) ??
      channels.find((candidate) => candidate.handle?.toLowerCase() === wanted.toLowerCase()))
    : channels.length === 1
      ? channels[0]
      : undefined;
  if (!channel) {
    const known = channels.map((candidate) => `${candidate.name} (${candidate.id})`).join(', ');
    throw new Error(
      wanted
        ? `The sign-in has no YouTube channel "${wanted}": give one of ${known} with --account, or sign in with the Google account (or Brand Account) of that channel.`
        : `The sign-in has several YouTube channels: pick one with --account (${known}).`,
    );
  }
  return {
    kind: 'youtube',
    account: channel.name,
    accountId: channel.id,
    endpoint: apiRoot,
    profileUrl: channel.handle
      ? `https://www.youtube.com/${channel.handle}`
      : `https://www.youtube.com/channel/${channel.id}`,
    settings: { channelId: channel.id },
    capabilities: capabilitiesOfYouTube(),
    secret: tokensSecret(input.tokens ?? { accessToken: token }),
  };
}
