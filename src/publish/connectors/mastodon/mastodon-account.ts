/**
 * A Mastodon account and its instance, before any post: the instance's address (mastodonOrigin), what
 * it lets a status carry (capabilitiesOfMastodon, from `GET /api/v2/instance`), how it words a refusal
 * (mastodonSaid, MASTODON_HOOKS), and the check of a token that `connect mastodon` runs (verifyMastodon).
 */
import type { Capabilities } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import { callPlatform, hideSecrets, type PlatformAnswer, summarise } from '../../platform-http.js';
import type { PlatformHooks } from '../http.js';

/** The members of `GET /api/v2/instance` that say what a status may carry; every one may be absent. */
export interface MastodonInstance {
  domain?: string;
  configuration?: {
    statuses?: {
      max_characters?: number;
      max_media_attachments?: number;
      characters_reserved_per_url?: number;
    };
    media_attachments?: {
      supported_mime_types?: string[];
      image_size_limit?: number;
      video_size_limit?: number;
    };
    polls?: { max_options?: number; max_characters_per_option?: number };
  };
}

/** The media types we accept that Mastodon may take (it takes no PDF). */
const MEDIA_TYPES = ['image/png', 'image/jpeg', 'video/mp4', 'video/quicktime'] as const;

/** What an instance lets a status carry, from its `GET /api/v2/instance` answer (Mastodon's defaults when absent). */
export function capabilitiesOfMastodon(instance: MastodonInstance): Capabilities {
  const statuses = instance.configuration?.statuses;
  const media = instance.configuration?.media_attachments;
  const polls = instance.configuration?.polls;
  const supported = Array.isArray(media?.supported_mime_types) ? media.supported_mime_types : undefined;
  const imageBytes = countOr(media?.image_size_limit, undefined);
  const videoBytes = countOr(media?.video_size_limit, undefined);
  return {
    textLimit: countOr(statuses?.max_characters, 500),
    // Mastodon counts grapheme clusters (StatusLengthValidator), a link as 23 whatever its length.
    textUnit: 'graphemes',
    linkLength: countOr(statuses?.characters_reserved_per_url, 23),
    maxMedia: countOr(statuses?.max_media_attachments, 4),
    mediaTypes: supported ? MEDIA_TYPES.filter((type) => supported.includes(type)) : [...MEDIA_TYPES],
    ...(imageBytes === undefined ? {} : { maxImageBytes: imageBytes }),
    ...(videoBytes === undefined ? {} : { maxVideoBytes: videoBytes }),
    requiresMedia: false,
    polls: true,
    pollWithMedia: false,
    maxPollOptions: countOr(polls?.max_options, 4),
    maxPollOptionLength: countOr(polls?.max_characters_per_option, 50),
  };
}

function countOr<T extends number | undefined>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;
}

/**
 * `https://host` of an instance given as `host`, `https://host/` or a URL on it. Plain http only to a
 * loopback address (a local test instance): a token must not cross the network unencrypted.
 */
export function mastodonOrigin(instance: string): string {
  const text = instance.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new Error(
      `"${instance}" is not a Mastodon instance address: give its domain, like mastodon.social.`,
    );
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`The Mastodon instance address must use https, not ${url.protocol}`);
  }
  return url.origin;
}

/** What Mastodon said in a refusal: its `error` (and `error_description`), else the body's first line. */
export function mastodonSaid(answer: PlatformAnswer): string {
  const { error, error_description: description } = (answer.json ?? {}) as Record<string, unknown>;
  if (typeof error === 'string' && error) {
    return typeof description === 'string' && description ? `${error}: ${description}` : error;
  }
  return summarise(answer.text) || `HTTP ${answer.status}`;
}

const TOKEN_ADVICE =
  'Make one under Preferences → Development → New application with the write:statuses, write:media and ' +
  'read:accounts scopes, or run connect without --token-env for the sign-in flow';

export interface VerifyMastodonOptions {
  /** The instance: `mastodon.social` or its URL. */
  instance: string;
  /** An access token of the account. Never put in an error message. */
  token: string;
  userAgent?: string;
  timeoutMs?: number;
}

/**
 * Checks a token against its instance (`verify_credentials`) and reads what the instance takes. Rejects
 * with an Error that says what to fix and never contains the token.
 */
export async function verifyMastodon(options: VerifyMastodonOptions): Promise<VerifiedConnection> {
  const origin = mastodonOrigin(options.instance);
  const get = async (path: string): Promise<PlatformAnswer> => {
    try {
      return await callPlatform(`${origin}${path}`, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/json',
          'user-agent': options.userAgent ?? 'social-publisher-mcp',
        },
        timeoutMs: options.timeoutMs ?? 15_000,
        secrets: [options.token],
      });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new Error(
        `Could not reach ${origin} (${hideSecrets(detail, [options.token])}): check the address.`,
      );
    }
  };
  const said = (answer: PlatformAnswer) => hideSecrets(mastodonSaid(answer), [options.token]);

  const credentials = await get('/api/v1/accounts/verify_credentials');
  if (credentials.status === 401 || (credentials.status === 403 && /scopes/i.test(said(credentials)))) {
    throw new Error(`Mastodon refused the access token: ${said(credentials)}. ${TOKEN_ADVICE}.`);
  }
  if (credentials.status === 403) {
    throw new Error(`Mastodon refused the account: ${said(credentials)}. Sign in on ${origin} to see why.`);
  }
  const account = (credentials.json ?? {}) as Record<string, unknown>;
  if (credentials.status !== 200 || typeof account.id !== 'string' || typeof account.username !== 'string') {
    throw new Error(
      `${origin} did not answer like a Mastodon instance (verify_credentials: ${said(credentials)}): check the address, or try again if the instance is down.`,
    );
  }
  const instanceAnswer = await get('/api/v2/instance');
  // Mastodon before 4.0 has no /api/v2/instance: its defaults are what it takes.
  if (instanceAnswer.status !== 200 && instanceAnswer.status !== 404) {
    throw new Error(
      `${origin} did not describe itself (/api/v2/instance: ${said(instanceAnswer)}): try again.`,
    );
  }
  const instance = (instanceAnswer.status === 200 ? (instanceAnswer.json ?? {}) : {}) as MastodonInstance;
  return {
    kind: 'mastodon',
    account: `@${account.username}@${typeof instance.domain === 'string' ? instance.domain : new URL(origin).host}`,
    accountId: account.id,
    endpoint: origin,
    profileUrl: typeof account.url === 'string' ? account.url : null,
    settings: {},
    capabilities: capabilitiesOfMastodon(instance),
    secret: options.token,
  };
}

/** The 403 answers that mean the token or the account, not the post: only reconnecting helps. */
const ACCOUNT_REFUSALS = /outside the authorized scopes|revoked|suspended|disabled|login is/i;

/** Mastodon's part of the shared classification (connectors/http.ts): its error shape, its 403s. */
export const MASTODON_HOOKS: PlatformHooks = {
  name: 'Mastodon',
  said: mastodonSaid,
  quirk: (answer, said) =>
    answer.status === 403 && ACCOUNT_REFUSALS.test(said) ? { kind: 'reconnect' } : undefined,
  wording: {
    reconnect: (call, said) =>
      `Mastodon refused the access token of ${call.account} (${said}): run \`social-publisher-mcp connect mastodon\` again for ${call.address} to reconnect the channel.`,
    unanswered: (call, message) =>
      `Mastodon (${call.address}) did not answer the ${call.what} request (${message}): it may have been published.`,
  },
};
