/**
 * A call of a Meta token endpoint (Facebook Login's, Threads'): the app's credentials go in the query
 * or the form, and a refusal is Meta's error envelope, whose message names the app's credentials when
 * they are wrong (code 1 or 101, "Error validating client secret", "Invalid Client ID").
 */
import type { OAuthHttp, OAuthTokens } from '../module.js';
import { callTokenEndpoint } from '../token-endpoint.js';
import { graphSaid } from './graph.js';

const APP_REFUSED = /client_secret|client secret|app secret|Invalid Client ID|client_id/i;

export function metaTokenCall(call: {
  platform: string;
  url: string;
  form?: Record<string, string>;
  http: Partial<OAuthHttp>;
  secrets: string[];
  checkApp: string;
  refusal: (said: string) => string;
}): Promise<OAuthTokens> {
  return callTokenEndpoint({ ...call, said: graphSaid, appRefused: (_, said) => APP_REFUSED.test(said) });
}
