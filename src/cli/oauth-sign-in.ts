/**
 * An OAuth sign-in on the command line, for a connector module with OAuth hooks (module.ts): the
 * program registers itself on the platform where the module can (Mastodon's apps), has the user
 * authorize it in a browser, and trades the code for tokens. The code comes back to a listener on this
 * machine's loopback, or (`--paste-code`, e.g. over SSH) is shown by the platform and pasted here.
 * `state` is 128 random bits, checked once; PKCE (S256) where the platform takes it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { OAuthHooks, OAuthHttp, OAuthTokens } from '../publish/connectors/module.js';
import { ask } from './prompt.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

export async function signIn(
  hooks: OAuthHooks,
  request: { endpoint: string; redirect: 'loopback' | 'paste' },
  http: OAuthHttp,
): Promise<OAuthTokens> {
  const { endpoint } = request;
  const state = randomBytes(16).toString('hex');
  const verifier = hooks.pkce ? randomBytes(32).toString('base64url') : undefined;
  const codeChallenge = verifier && createHash('sha256').update(verifier).digest('base64url');
  const client = async (redirectUri: string) => {
    if (!hooks.registerClient) {
      throw new Error(
        'This platform needs an app of the operator: its client credentials are not supported yet.',
      );
    }
    return hooks.registerClient({ endpoint, redirectUri, ...http });
  };
  const page = (clientId: string, redirectUri: string) =>
    hooks.authorizationUrl({
      endpoint,
      clientId,
      redirectUri,
      state,
      scopes: hooks.scopes,
      ...(codeChallenge ? { codeChallenge } : {}),
    });
  const exchange = (code: string, redirectUri: string, app: { clientId: string; clientSecret: string }) =>
    hooks.exchangeCode({
      endpoint,
      code,
      redirectUri,
      ...app,
      ...(verifier ? { codeVerifier: verifier } : {}),
      ...http,
    });

  if (request.redirect === 'paste' && hooks.pasteRedirectUri) {
    const redirectUri = hooks.pasteRedirectUri;
    const app = await client(redirectUri);
    say(
      `Open this address in a browser, sign in and authorize social-publisher-mcp:\n\n  ${page(app.clientId, redirectUri)}\n`,
    );
    const code = await ask('Paste the authorization code: ', { secret: true });
    return exchange(code, redirectUri, app);
  }
  const listener = await listenForCode(state);
  try {
    const app = await client(listener.redirectUri);
    say(
      `Open this address in a browser, sign in and authorize social-publisher-mcp (waiting up to 10 minutes; use --paste-code if the browser is on another machine):\n\n  ${page(app.clientId, listener.redirectUri)}\n`,
    );
    const code = await listener.code;
    return await exchange(code, listener.redirectUri, app);
  } finally {
    listener.close();
  }
}

/** A one-shot listener on loopback for the OAuth redirect; only a request with our `state` counts. */
async function listenForCode(
  state: string,
): Promise<{ redirectUri: string; code: Promise<string>; close(): void }> {
  let settle: { resolve(code: string): void; reject(error: Error): void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
      res.writeHead(404).end();
      return;
    }
    const given = url.searchParams.get('code');
    const refused = url.searchParams.get('error_description') ?? url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(
      given
        ? 'Authorized: you can close this tab and go back to the terminal.'
        : `Not authorized: ${refused}`,
    );
    if (given) settle.resolve(given);
    else
      settle.reject(new Error(`The platform did not authorize the app: ${refused ?? 'no code was given'}.`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const timer = setTimeout(
    () => settle.reject(new Error('No authorization arrived within 10 minutes: run connect again.')),
    10 * 60_000,
  );
  timer.unref();
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    code,
    close: () => {
      clearTimeout(timer);
      server.close();
    },
  };
}
