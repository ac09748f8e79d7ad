/**
 * The sign-in endpoints of the Mastodon stand-in (mastodon-server.ts): registering an app, the
 * authorization page (approved at once by the signed-in user) and the token endpoint, answering as
 * Doorkeeper does (docs.joinmastodon.org methods/apps and methods/oauth).
 */
import { randomBytes } from 'node:crypto';
import type { FakeAnswer, FakeRoute } from './fake-platform/kit.js';

type Json = Record<string, unknown>;

interface App {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  scopes: string[];
}

export interface SignInState {
  /** A new token of the account with these scopes (space separated). */
  issueToken(scopes: string): string;
  now(): number;
  newId(): string;
  paramsOf(request: Parameters<FakeRoute['handle']>[0]): Json;
}

const OOB = 'urn:ietf:wg:oauth:2.0:oob';

export function signInRoutes(state: SignInState): FakeRoute[] {
  const apps = new Map<string, App>();
  const codes = new Map<string, { clientId: string; redirectUri: string; scopes: string[] }>();
  const secret = () => randomBytes(24).toString('base64url');

  function registerApp(params: Json): FakeAnswer {
    const name = stringOr(params.client_name);
    if (!name?.trim())
      return { status: 422, body: { error: "Validation failed: Application name can't be blank" } };
    const given = params.redirect_uris ?? params.redirect_uri;
    const redirectUris = (Array.isArray(given) ? given.map(String) : String(given ?? '').split(/\s+/)).filter(
      Boolean,
    );
    if (redirectUris.length === 0 || !redirectUris.every((uri) => uri === OOB || isAbsoluteUri(uri))) {
      return { status: 422, body: { error: 'Validation failed: Redirect URI must be an absolute URI.' } };
    }
    const app: App = {
      clientId: secret(),
      clientSecret: secret(),
      redirectUris,
      scopes: (stringOr(params.scopes) ?? 'read').split(/\s+/).filter(Boolean),
    };
    apps.set(app.clientId, app);
    return {
      status: 200,
      body: {
        id: state.newId(),
        name,
        website: stringOr(params.website) ?? null,
        scopes: app.scopes,
        redirect_uri: redirectUris.join('\n'),
        redirect_uris: redirectUris,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        client_secret_expires_at: 0,
      },
    };
  }

  function authorizePage(query: URLSearchParams): FakeAnswer {
    const app = apps.get(query.get('client_id') ?? '');
    const redirectUri = query.get('redirect_uri') ?? '';
    const scopes = (query.get('scope') ?? 'read').split(/[\s+]+/).filter(Boolean);
    const problem =
      query.get('response_type') !== 'code'
        ? 'The authorization server does not support this response type.'
        : !app
          ? 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.'
          : !app.redirectUris.includes(redirectUri)
            ? 'The requested redirect uri is malformed or doesn\u2019t match client redirect URI.'
            : !scopes.every((scope) => app.scopes.includes(scope))
              ? 'The requested scope is invalid, unknown, or malformed.'
              : undefined;
    const html = { 'content-type': 'text/html; charset=utf-8' };
    if (problem || !app) {
      const page = `<html><body><div class="form-container"><p>${escapeHtml(problem ?? '')}</p></div></body></html>`;
      return { status: 400, headers: html, body: page };
    }
    const code = secret();
    codes.set(code, { clientId: app.clientId, redirectUri, scopes });
    if (redirectUri === OOB) {
      const page = `<html><body><input class="oauth-code" readonly type="text" value="${code}"></body></html>`;
      return { status: 200, headers: html, body: page };
    }
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    const given = query.get('state');
    if (given !== null) target.searchParams.set('state', given);
    return { status: 302, headers: { location: target.href } };
  }

  function issueAccessToken(params: Json): FakeAnswer {
    const refusal = (status: number, error: string, description: string) => ({
      status,
      body: { error, error_description: description },
    });
    if (params.grant_type !== 'authorization_code') {
      return refusal(
        400,
        'unsupported_grant_type',
        'The authorization grant type is not supported by the authorization server.',
      );
    }
    const app = apps.get(stringOr(params.client_id) ?? '');
    if (!app || app.clientSecret !== params.client_secret) {
      return refusal(
        401,
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      );
    }
    const code = codes.get(stringOr(params.code) ?? '');
    if (!code || code.clientId !== app.clientId || code.redirectUri !== params.redirect_uri) {
      return refusal(
        400,
        'invalid_grant',
        'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
      );
    }
    codes.delete(stringOr(params.code)!);
    const scope = code.scopes.join(' ');
    const accessToken = state.issueToken(scope);
    return {
      status: 200,
      body: {
        access_token: accessToken,
        token_type: 'Bearer',
        scope,
        created_at: Math.floor(state.now() / 1000),
      },
    };
  }

  return [
    { method: 'POST', path: '/api/v1/apps', handle: (request) => registerApp(state.paramsOf(request)) },
    { method: 'GET', path: '/oauth/authorize', handle: (request) => authorizePage(request.query) },
    { method: 'POST', path: '/oauth/token', handle: (request) => issueAccessToken(state.paramsOf(request)) },
  ];
}

export function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function isAbsoluteUri(text: string): boolean {
  try {
    return new URL(text).protocol !== '';
  } catch {
    return false;
  }
}
