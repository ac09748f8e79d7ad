/**
 * An OAuth sign-in on the command line, for a connector module with OAuth hooks (module.ts). The app is
 * the operator's (`SOCIAL_PUBLISHER_<APP>_CLIENT_ID`, oauth-apps.ts) or, for Mastodon, one the program
 * registers on the instance. The user authorizes it in a browser; the code comes back to a listener on
 * this machine's loopback (the redirect URI's own address for an operator's app, which registered it;
 * any free port for Mastodon), or is pasted: the address the browser ended on, or (Mastodon) the code
 * the platform shows. `state` is 128 random bits, checked once; PKCE (S256) where the platform takes it.
 */
import { createServer } from 'node:http';
import { beginSignIn, codeFromRedirect, exchangeCode, SignInRefused } from '../oauth/sign-in.js';
import type { OAuthClient, OAuthHooks, OAuthHttp, OAuthTokens } from '../publish/connectors/module.js';
import { ask } from './prompt.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

/** How long the program waits for the browser (product.md). */
const WAIT_MS = 10 * 60_000;

export interface SignInRequest {
  /** The platform's authorization origin (`--auth-root`, the app's, or the Mastodon instance). */
  authRoot: string;
  /** The operator's app; absent: the module registers one (`registerClient`). */
  client?: OAuthClient;
  /** The operator's registered redirect URI; absent: a loopback one on any port (Mastodon). */
  redirectUri?: string;
  /** `--paste-code`, or a redirect URI the program cannot listen on. */
  paste: boolean;
  /** `--account`: the identity wanted, which may need more scopes (`OAuthHooks.scopesFor`). */
  account?: string | undefined;
}

export async function signIn(
  hooks: OAuthHooks,
  request: SignInRequest,
  http: OAuthHttp,
): Promise<OAuthTokens> {
  const { authRoot } = request;
  const client = async (redirectUri: string): Promise<OAuthClient> => {
    if (request.client) return request.client;
    if (!hooks.registerClient)
      throw new Error('This platform needs the operator’s app: its credentials are missing.');
    return hooks.registerClient({ endpoint: authRoot, redirectUri, ...http });
  };
  const open = (url: string, waiting: string) =>
    say(
      `Open this address in a browser, sign in and authorize social-publisher-mcp${waiting}:\n\n  ${url}\n`,
    );

  // Mastodon shows the code on its own page: the user pastes the code.
  if (request.paste && !request.client && hooks.pasteRedirectUri) {
    const redirectUri = hooks.pasteRedirectUri;
    const app = await client(redirectUri);
    const started = beginSignIn(hooks, {
      authRoot,
      clientId: app.clientId,
      redirectUri,
      account: request.account,
    });
    open(started.authorizationUrl, '');
    const code = await ask('Paste the authorization code: ', { secret: true });
    return exchangeCode(hooks, { authRoot, client: app, redirectUri, code, ...verifier(started) }, http);
  }
  const listenOn = request.paste ? undefined : loopbackAddress(request.redirectUri);
  if (request.redirectUri && listenOn === undefined) {
    // An https redirect URI (or --paste-code): the browser ends on an address the user copies here.
    const redirectUri = request.redirectUri;
    const app = await client(redirectUri);
    const started = beginSignIn(hooks, {
      authRoot,
      clientId: app.clientId,
      redirectUri,
      account: request.account,
    });
    open(started.authorizationUrl, ', then paste here the address the browser ends on');
    const address = await ask('Address the browser ended on: ', { secret: true });
    const code = codeFromRedirect(address, started.state);
    return exchangeCode(hooks, { authRoot, client: app, redirectUri, code, ...verifier(started) }, http);
  }
  const listener = await listenForRedirect(listenOn);
  try {
    const redirectUri = request.redirectUri ?? listener.redirectUri;
    const app = await client(redirectUri);
    const started = beginSignIn(hooks, {
      authRoot,
      clientId: app.clientId,
      redirectUri,
      account: request.account,
    });
    listener.expect(started.state);
    open(
      started.authorizationUrl,
      ' (waiting up to 10 minutes; use --paste-code if the browser is on another machine)',
    );
    const code = await listener.code;
    return await exchangeCode(
      hooks,
      { authRoot, client: app, redirectUri, code, ...verifier(started) },
      http,
    );
  } finally {
    listener.close();
  }
}

const verifier = (started: { codeVerifier?: string }) =>
  started.codeVerifier ? { codeVerifier: started.codeVerifier } : {};

/** Where to listen for a redirect URI: a loopback `http` address; undefined for any other. */
function loopbackAddress(redirectUri: string | undefined): URL | undefined {
  if (redirectUri === undefined) return undefined;
  const url = new URL(redirectUri);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  return url.protocol === 'http:' && loopback ? url : undefined;
}

/**
 * A one-shot listener for the OAuth redirect, on `at` (its host, port and path) or on any free loopback
 * port at /callback. Only a request with the sign-in's `state` counts; its answer tells the browser's
 * user what happened.
 */
async function listenForRedirect(at: URL | undefined): Promise<{
  redirectUri: string;
  expect(state: string): void;
  code: Promise<string>;
  close(): void;
}> {
  let settle!: { resolve(code: string): void; reject(error: Error): void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  code.catch(() => undefined);
  let state: string | undefined;
  const path = at?.pathname ?? '/callback';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== path || state === undefined || url.searchParams.get('state') !== state) {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not a sign-in of this program.');
      return;
    }
    try {
      const given = codeFromRedirect(url.href, state);
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Authorized: you can close this tab and go back to the terminal.');
      settle.resolve(given);
    } catch (error) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Not authorized: ${(error as Error).message}`);
      settle.reject(error as Error);
    }
  });
  const host = at ? at.hostname.replace(/^\[|\]$/g, '') : '127.0.0.1';
  const port = at ? Number(at.port || 80) : 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new SignInRefused(
          error.code === 'EADDRINUSE'
            ? `Cannot listen on ${at?.origin}: the port is in use. Free it, or register another redirect URI and give it with --redirect-uri (or use --paste-code).`
            : `Cannot listen on ${at?.origin ?? 'loopback'}: ${error.message}`,
        ),
      ),
    );
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as { port: number }).port;
  const timer = setTimeout(
    () => settle.reject(new SignInRefused('No authorization arrived within 10 minutes: run connect again.')),
    WAIT_MS,
  );
  timer.unref();
  return {
    redirectUri: `http://127.0.0.1:${bound}/callback`,
    expect: (expected) => {
      state = expected;
    },
    code,
    close: () => {
      clearTimeout(timer);
      server.close();
    },
  };
}
