/**
 * What `connect facebook` and `connect instagram` (with Facebook Login) check alike once the person has
 * signed in: the Page (or the Page-linked Instagram account) chosen with `--account` among those the
 * sign-in gives, its Page's token tried on it, and that token stored.
 */
import { hideSecrets } from '../../platform-http.js';
import type { OAuthHttp, OAuthTokens } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';
import { signedInGet } from '../token-endpoint.js';
import { GRAPH_API_VERSION, graphSaid } from './graph.js';

/**
 * The one named with `--account` (its id, or its name in any case), else the only one when none is
 * named; undefined when none fits (the caller says which there are).
 */
export function chosenByAccount<T extends { id: string }>(
  candidates: readonly T[],
  wanted: string | undefined,
  nameOf: (candidate: T) => string,
): T | undefined {
  if (!wanted) return candidates.length === 1 ? candidates[0] : undefined;
  const lower = wanted.toLowerCase();
  return (
    candidates.find((candidate) => candidate.id === wanted) ??
    candidates.find((candidate) => nameOf(candidate).toLowerCase() === lower)
  );
}

/**
 * Asks Meta for the object `id` (`fields`) with the Page's token: its fields when Meta accepts the
 * token and answers for that id, else an Error of `refused(said)`, holding none of `secrets`.
 */
export async function readWithPageToken(
  apiRoot: string,
  id: string,
  fields: string,
  page: { token: string; secrets: readonly string[] },
  http: OAuthHttp,
  refused: (said: string) => string,
): Promise<Record<string, unknown>> {
  const url = `${apiRoot}/${GRAPH_API_VERSION}/${encodeURIComponent(id)}?fields=${fields}`;
  const answer = await signedInGet(url, page.token, http, page.secrets);
  const found = (answer.json ?? {}) as Record<string, unknown>;
  const foundId = typeof found.id === 'number' ? String(found.id) : found.id;
  if (answer.status !== 200 || foundId !== id) {
    throw new Error(refused(hideSecrets(graphSaid(answer), page.secrets)));
  }
  return found;
}

/** What is stored for a Page token (it does not expire): the token, and the scope the sign-in granted. */
export function pageTokenSecret(pageToken: string, tokens: OAuthTokens | undefined): string {
  return tokensSecret({ accessToken: pageToken, ...(tokens?.scope ? { scope: tokens.scope } : {}) });
}
