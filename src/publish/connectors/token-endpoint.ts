/**
 * One call of a platform's OAuth token endpoint (the code's exchange, a refresh, Meta's long-lived
 * exchanges), shared by the OAuth modules: the request, the tokens read from a 200 answer (RFC 6749
 * §5.1: `access_token`, `refresh_token`, `expires_in`, `scope`), and otherwise an Error in the
 * platform's words that says what to do. What differs per platform is given: the address and method,
 * how the app authenticates (HTTP Basic, or its credentials in the form or query), how its errors read,
 * and what each refusal means.
 *
 * The client secret, the code, the verifier and every token (those answered included) are in
 * `secrets` and never reach a message.
 */
import { callPlatform, hideSecrets, type PlatformAnswer } from '../platform-http.js';
import type { OAuthClient, OAuthHttp, OAuthTokens } from './module.js';

export interface TokenEndpointCall {
  /** The platform's name in messages: `Threads`. */
  platform: string;
  /** The endpoint, with its query for a GET. */
  url: string;
  /** The form posted; absent: a GET of `url`. */
  form?: Record<string, string>;
  /** The app authenticates with HTTP Basic (RFC 6749 §2.3.1) rather than in the form or query. */
  basic?: OAuthClient;
  http: Partial<OAuthHttp>;
  /** Never repeated in an error; the tokens answered are added. */
  secrets: string[];
  /** What the platform said in a refusal. Default: OAuth's `error: error_description`, or the body. */
  said?(answer: PlatformAnswer): string;
  /**
   * How to check the app's credentials, when the answer says they were refused (`appRefused`): a
   * sentence naming where the platform shows them.
   */
  checkApp: string;
  /** Whether a refusal is of the app's credentials. Default: HTTP 401, or `invalid_client`. */
  appRefused?(answer: PlatformAnswer, said: string): boolean;
  /** The message of any other refusal, given what the platform said. */
  refusal(said: string): string;
}

/** OAuth's error answer (`error`, `error_description`), or a problem's `detail`, or the body's text. */
export function oauthSaid(answer: PlatformAnswer): string {
  const body = (answer.json ?? {}) as Record<string, unknown>;
  const error = typeof body.error === 'string' ? body.error : undefined;
  const description = typeof body.error_description === 'string' ? body.error_description : undefined;
  if (error || description) return [error, description].filter(Boolean).join(': ');
  for (const key of ['detail', 'message', 'title']) {
    const value = body[key];
    if (typeof value === 'string' && value) return value;
  }
  return answer.text.replace(/\s+/g, ' ').trim().slice(0, 300) || `HTTP ${answer.status}`;
}

function defaultAppRefused(answer: PlatformAnswer): boolean {
  const body = (answer.json ?? {}) as Record<string, unknown>;
  return answer.status === 401 || body.error === 'invalid_client';
}

/** The tokens of a 200 answer, or undefined when it holds no access token. */
function tokensOf(answer: PlatformAnswer, nowMs: number): OAuthTokens | undefined {
  let body = (answer.json ?? {}) as Record<string, unknown>;
  // Instagram Login's code exchange is documented as `{ data: [{ access_token, user_id, permissions }] }`
  // and reported flat by integrators: both are read.
  if (body.access_token === undefined && Array.isArray(body.data) && typeof body.data[0] === 'object') {
    body = (body.data[0] ?? {}) as Record<string, unknown>;
  }
  const token = body.access_token;
  if (answer.status !== 200 || typeof token !== 'string' || !token) return undefined;
  const tokens: OAuthTokens = { accessToken: token };
  if (typeof body.refresh_token === 'string' && body.refresh_token) tokens.refreshToken = body.refresh_token;
  const expiresIn = Number(body.expires_in);
  if (Number.isFinite(expiresIn) && expiresIn > 0) tokens.expiresAtMs = nowMs + expiresIn * 1000;
  if (typeof body.scope === 'string') tokens.scope = body.scope;
  return tokens;
}

/** Calls the token endpoint; its tokens, or an Error that says what to do and holds no secret. */
export async function callTokenEndpoint(call: TokenEndpointCall): Promise<OAuthTokens> {
  const secrets = call.secrets;
  if (call.basic) secrets.push(call.basic.clientSecret);
  const where = call.url.split('?')[0];
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': call.http.userAgent ?? 'social-publisher-mcp',
  };
  if (call.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (call.basic) {
    const { clientId, clientSecret } = call.basic;
    headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  }
  let answer: PlatformAnswer;
  try {
    answer = await callPlatform(call.url, {
      method: call.form ? 'POST' : 'GET',
      headers,
      ...(call.form ? { body: new URLSearchParams(call.form).toString() } : {}),
      timeoutMs: call.http.timeoutMs ?? 15_000,
      secrets,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not reach ${call.platform}'s token endpoint ${where} (${hideSecrets(detail, secrets)}): try again.`,
    );
  }
  const tokens = tokensOf(answer, Date.now());
  if (tokens) {
    secrets.push(tokens.accessToken, ...(tokens.refreshToken ? [tokens.refreshToken] : []));
    return tokens;
  }
  const said = hideSecrets((call.said ?? oauthSaid)(answer), secrets);
  if ((call.appRefused ?? defaultAppRefused)(answer, said)) {
    throw new Error(`${call.platform} did not accept the app's credentials (${said}): ${call.checkApp}`);
  }
  throw new Error(call.refusal(said));
}

/**
 * A GET with a sign-in's access token, for `connect`'s checks (the identities, the account): the answer
 * whatever its status, or an Error saying the platform could not be reached at that address (check
 * `--api-root`), holding none of `secrets` (the token is one).
 */
export async function signedInGet(
  url: string,
  token: string,
  http: Partial<OAuthHttp>,
  secrets: readonly string[] = [token],
): Promise<PlatformAnswer> {
  try {
    return await callPlatform(url, {
      method: 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'user-agent': http.userAgent ?? 'social-publisher-mcp',
      },
      timeoutMs: http.timeoutMs ?? 15_000,
      secrets,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not reach ${new URL(url).origin} (${hideSecrets(detail, secrets)}): check --api-root.`,
    );
  }
}
