/**
 * A Bluesky account before any post: what it takes (capabilitiesOfBluesky), its service's address
 * (blueskyService), and the sign-in with an app password that `connect bluesky` runs (verifyBluesky).
 */
import type { Capabilities } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import {
  BLUESKY_IMAGE_TYPES,
  BLUESKY_MAX_IMAGE_BYTES,
  BLUESKY_MAX_IMAGES,
  BLUESKY_TEXT_GRAPHEMES,
} from './bluesky-post.js';
import {
  APP_PASSWORD_ADVICE,
  type BlueskySecret,
  hideSecrets,
  isXrpcFailure,
  newAgent,
} from './bluesky-session.js';

/** What a Bluesky account takes. Video would need Bluesky's video service: not supported here. */
export function capabilitiesOfBluesky(): Capabilities {
  return {
    textLimit: BLUESKY_TEXT_GRAPHEMES,
    textUnit: 'graphemes',
    maxMedia: BLUESKY_MAX_IMAGES,
    mediaTypes: BLUESKY_IMAGE_TYPES,
    maxImageBytes: BLUESKY_MAX_IMAGE_BYTES,
    requiresMedia: false,
    polls: false,
    pollWithMedia: false,
  };
}

/** The PDS's (or entryway's) base URL, `https://host`, from `host` or a URL. */
export function blueskyService(service: string): string {
  const text = service.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new Error(`"${service}" is not a Bluesky service address: give its URL, like https://bsky.social.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`The Bluesky service address must use https, not ${url.protocol}`);
  }
  return url.origin;
}

export interface VerifyBlueskyOptions {
  /** The account's PDS or entryway: `https://bsky.social` for accounts made on bsky.app. */
  service: string;
  /** `name.bsky.social`, with or without `@`. */
  handle: string;
  /** An app password of the account. Never put in an error message. */
  password: string;
  userAgent?: string;
  timeoutMs?: number;
}

/**
 * Signs in with an app password and says what to store. Rejects with an Error that says what to fix
 * and never contains the password: a wrong handle or password, the account's own password (an app
 * password can be revoked alone), an account that is not active, a service that cannot be reached.
 */
export async function verifyBluesky(options: VerifyBlueskyOptions): Promise<VerifiedConnection> {
  const service = blueskyService(options.service);
  const handle = options.handle.trim().replace(/^@/, '');
  const userAgent = options.userAgent ?? 'social-publisher-mcp';
  const agent = await newAgent(service, options.timeoutMs ?? 15_000, userAgent);
  try {
    await agent.login({ identifier: handle, password: options.password });
  } catch (error) {
    const said = hideSecrets(error instanceof Error ? error.message : String(error), [options.password]);
    if (!isXrpcFailure(error) || error.status === 1) {
      throw new Error(`Could not reach ${service} (${said}): check the address.`);
    }
    if (error.error === 'AccountTakedown') throw new Error(`Bluesky has taken down ${handle} (${said}).`);
    if (error.status === 401) {
      throw new Error(
        `Bluesky refused the handle or app password (${said}): check the handle ${handle}, and ${APP_PASSWORD_ADVICE}.`,
      );
    }
    if (error.status === 429) throw new Error(`Bluesky is limiting sign-ins to ${handle}: try again later.`);
    throw new Error(`Bluesky did not sign ${handle} in (${said}): try again.`);
  }
  const session = agent.session!;
  if (tokenScope(session.accessJwt) === 'com.atproto.access') {
    await agent.logout();
    throw new Error(`That is the account's own password, not an app password: ${APP_PASSWORD_ADVICE}.`);
  }
  if (session.active === false) {
    throw new Error(
      `Bluesky says ${session.handle} is ${session.status ?? 'not active'}: reactivate it first.`,
    );
  }
  const { accessJwt, refreshJwt, did } = session;
  const secret: BlueskySecret = {
    appPassword: options.password,
    session: { accessJwt, refreshJwt, did, handle: session.handle },
  };
  return {
    kind: 'bluesky',
    account: session.handle,
    accountId: did,
    endpoint: service,
    profileUrl: `https://bsky.app/profile/${session.handle}`,
    settings: {},
    capabilities: capabilitiesOfBluesky(),
    secret: JSON.stringify(secret),
  };
}

/** The `scope` of a session's access token (as the reference PDS makes them), or undefined. */
function tokenScope(jwt: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload?.scope === 'string' ? payload.scope : undefined;
  } catch {
    return undefined;
  }
}
