/**
 * The steps of an OAuth sign-in that every way in shares (`connect` on the terminal, `serve`'s
 * callback, the MCP tool): the authorization address with a single-use `state` (128 random bits) and
 * PKCE (S256) where the platform takes it, the code read back from the address the browser ended on,
 * the code traded for tokens, and the identity to post as chosen among those the approval gives. The
 * platform's own addresses and answers are its module's (`OAuthHooks`).
 */
import { createHash, randomBytes } from 'node:crypto';
import type {
  OAuthClient,
  OAuthHooks,
  OAuthHttp,
  OAuthIdentity,
  OAuthTokens,
} from '../publish/connectors/module.js';

export { DEFAULT_REDIRECT_URI } from '../oauth-apps.js';

/** A sign-in begun: what to keep until the browser comes back (the verifier is a secret). */
export interface SignInStarted {
  state: string;
  codeVerifier?: string;
  authorizationUrl: string;
}

export function beginSignIn(
  hooks: OAuthHooks,
  params: { authRoot: string; clientId: string; redirectUri: string; account?: string | undefined },
): SignInStarted {
  const state = randomBytes(16).toString('hex');
  const codeVerifier = hooks.pkce ? randomBytes(32).toString('base64url') : undefined;
  const codeChallenge = codeVerifier && createHash('sha256').update(codeVerifier).digest('base64url');
  const authorizationUrl = hooks.authorizationUrl({
    endpoint: params.authRoot,
    clientId: params.clientId,
    redirectUri: params.redirectUri,
    state,
    scopes: hooks.scopesFor?.(params.account) ?? hooks.scopes,
    ...(codeChallenge ? { codeChallenge } : {}),
  });
  return { state, ...(codeVerifier ? { codeVerifier } : {}), authorizationUrl };
}

/** A sign-in the user or the platform refused, or an address that is not its answer: nothing is stored. */
export class SignInRefused extends Error {}

/**
 * The code of the address the browser was sent back to (`…/callback?code=…&state=…`), checked against
 * the sign-in's `state`; the platform's refusal (`error`, `error_description`) in its words.
 */
export function codeFromRedirect(address: string, state: string): string {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    throw new SignInRefused(
      'That is not the address the browser ended on: paste the whole address from its address bar.',
    );
  }
  const given = url.searchParams.get('state');
  if (given !== state) {
    throw new SignInRefused(
      given === null
        ? 'The address has no state: paste the address the browser ended on after approving.'
        : 'The address belongs to another sign-in (its state does not match): start connect again.',
    );
  }
  const refused = url.searchParams.get('error_description') ?? url.searchParams.get('error');
  if (refused !== null) throw new SignInRefused(`The platform did not authorize the app: ${refused}.`);
  const code = url.searchParams.get('code');
  if (!code)
    throw new SignInRefused('The address has no authorization code: approve the app, then try again.');
  return code;
}

/** Trades the code for tokens at once (X's codes live 30 s). */
export function exchangeCode(
  hooks: OAuthHooks,
  params: { authRoot: string; client: OAuthClient; redirectUri: string; code: string; codeVerifier?: string },
  http: OAuthHttp,
): Promise<OAuthTokens> {
  return hooks.exchangeCode({
    endpoint: params.authRoot,
    code: params.code,
    redirectUri: params.redirectUri,
    ...params.client,
    ...(params.codeVerifier ? { codeVerifier: params.codeVerifier } : {}),
    ...http,
  });
}

/** The identities the approval gives, for the account to post as; none when the platform has one. */
export async function identitiesOf(
  hooks: OAuthHooks,
  params: { apiRoot: string; accessToken: string },
  http: OAuthHttp,
): Promise<OAuthIdentity[]> {
  if (!hooks.identities) return [];
  return hooks.identities({ endpoint: params.apiRoot, accessToken: params.accessToken, ...http });
}

/** Several identities and no `--account` (or one that matches none): the choices, for the user. */
export class IdentityChoiceNeeded extends Error {
  constructor(
    readonly identities: readonly OAuthIdentity[],
    wanted: string | undefined,
  ) {
    super(
      `${wanted === undefined ? 'This account can post as several identities' : `No identity matches "${wanted}"`}: choose one with --account (its id or its name):\n${identityList(identities)}`,
    );
  }
}

export function identityList(identities: readonly OAuthIdentity[]): string {
  return identities
    .map((identity) => `  ${identity.id}  ${identity.name}${identity.kind ? ` (${identity.kind})` : ''}`)
    .join('\n');
}

const bare = (name: string) => name.trim().replace(/^@/, '').toLowerCase();

/**
 * The identity `wanted` names (by id, then by exact name, then by name ignoring case and a leading `@`), or the only one;
 * throws IdentityChoiceNeeded otherwise. Undefined when the platform gives no list.
 */
export function chooseIdentity(
  identities: readonly OAuthIdentity[],
  wanted: string | undefined,
): OAuthIdentity | undefined {
  if (identities.length === 0) return undefined;
  if (wanted === undefined) {
    if (identities.length === 1) return identities[0];
    throw new IdentityChoiceNeeded(identities, undefined);
  }
  const found =
    identities.find((identity) => identity.id === wanted) ??
    identities.find((identity) => identity.name === wanted) ??
    identities.filter((identity) => identity.name.toLowerCase() === wanted.toLowerCase()).at(0) ??
    // A username given with or without its `@` (Instagram's accounts, `@acme` or `acme`).
    identities.find((identity) => bare(identity.name) === bare(wanted));
  if (!found) throw new IdentityChoiceNeeded(identities, wanted);
  return found;
}
