/**
 * The Bluesky connector's session with the account's PDS. The connection's secret is JSON of the app
 * password and the last session (access and refresh tokens). An access token the PDS turns down is
 * refreshed; a refresh token it turns down gives way to a new session made with the app password; each
 * new session is stored with `saveSecret`, so that the next process starts with it. Only an app
 * password the PDS refuses (revoked, or the account taken down) throws NeedsReconnect.
 *
 * @atproto/api is loaded on the first call, so that a process that never publishes to Bluesky never
 * loads it.
 */
import type { AtpAgent } from '@atproto/api';
import type { ConnectionDetails, ConnectorContext } from '../../connector.js';

export const APP_PASSWORD_ADVICE = 'make an app password at Settings → Privacy and security → App passwords';

/** Answers about the account rather than the request: only the account's owner can help. */
export const ACCOUNT_ERRORS: ReadonlySet<string> = new Set([
  'AccountTakedown',
  'AccountDeactivated',
  'AccountSuspended',
]);

interface StoredSession {
  accessJwt: string;
  refreshJwt: string;
  did: string;
  handle: string;
}

/** What a connection's secret holds: the app password, and the session last made with it. */
export interface BlueskySecret {
  appPassword: string;
  session?: StoredSession;
}

/** The channel must be connected again (the app password refused, the account inactive); `advice` says how. */
export class NeedsReconnect extends Error {
  constructor(
    message: string,
    readonly advice?: string,
  ) {
    super(message);
  }
}

/** The JSON secret; a secret that is not JSON (from an environment variable) is the app password. */
export function readSecret(secret: string): BlueskySecret {
  if (!secret.trimStart().startsWith('{')) return { appPassword: secret.trim() };
  try {
    const parsed = JSON.parse(secret) as Partial<BlueskySecret>;
    if (typeof parsed.appPassword === 'string' && parsed.appPassword) {
      const { session } = parsed;
      const parts = session ? [session.accessJwt, session.refreshJwt, session.did, session.handle] : [];
      const whole = parts.length > 0 && parts.every((part) => typeof part === 'string' && part !== '');
      return whole ? { appPassword: parsed.appPassword, session } : { appPassword: parsed.appPassword };
    }
  } catch {
    // Unreadable: said below.
  }
  throw new NeedsReconnect('The stored Bluesky secret is unreadable', APP_PASSWORD_ADVICE);
}

/**
 * The answer's own HTTP status, on an error answer: the XRPC client keeps only its enum of statuses
 * (a 408 becomes InvalidRequest, 400), which would make a timeout a refusal.
 */
export const HTTP_STATUS_HEADER = 'x-social-publisher-http-status';

/** A fetch that sends our user-agent and gives up at the deadline, reading the answer included. */
function deadlineFetch(timeoutMs: number, userAgent: string): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    request.headers.set('user-agent', userAgent);
    const deadline = AbortSignal.timeout(timeoutMs);
    const response = await fetch(request, {
      signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
    });
    if (response.ok) return response;
    const headers = new Headers(response.headers);
    headers.set(HTTP_STATUS_HEADER, String(response.status));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

export async function newAgent(service: string, timeoutMs: number, userAgent: string): Promise<AtpAgent> {
  const { AtpAgent } = await import('./atproto.js');
  return new AtpAgent({ service, fetch: deadlineFetch(timeoutMs, userAgent) });
}

/**
 * What an XRPC call fails with (@atproto/xrpc's XRPCError), told without loading the library. `status`
 * is the HTTP status, or 1 when no answer came, 2 when the answer could not be read.
 */
export interface XrpcFailure extends Error {
  status: number;
  error?: string;
  headers?: Record<string, string>;
}

export function isXrpcFailure(error: unknown): error is XrpcFailure {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number';
}

/** The PDS turned down the session's token: a new session may help. */
export function sessionRejected(error: unknown): boolean {
  return (
    isXrpcFailure(error) &&
    (error.status === 401 || error.error === 'ExpiredToken' || error.error === 'InvalidToken')
  );
}

/** Each given secret, and anything that looks like a JWT, replaced: reasons and logs never carry them. */
export function hideSecrets(text: string, secrets: readonly string[]): string {
  const hidden = secrets.reduce((out, secret) => (secret ? out.replaceAll(secret, '<secret>') : out), text);
  return hidden.replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<token>');
}

export class BlueskySession {
  private agent: Promise<AtpAgent> | undefined;
  private renewing: Promise<void> | undefined;
  private stored: StoredSession | undefined;

  constructor(
    private readonly connection: ConnectionDetails & { secret: string },
    private readonly context: ConnectorContext,
  ) {}

  /** The agent, with the stored session if there is one. Rejects with NeedsReconnect on a bad secret. */
  ready(): Promise<AtpAgent> {
    this.agent ??= newAgent(this.connection.endpoint, this.context.timeoutMs, this.context.userAgent).then(
      (agent) => {
        const { session } = readSecret(this.connection.secret);
        if (session) agent.sessionManager.session = { ...session, active: true };
        this.stored = session;
        return agent;
      },
    );
    return this.agent;
  }

  /** One XRPC call with a session; when the PDS turns the session down, once more with a new one. */
  async call<T>(request: (agent: AtpAgent) => Promise<T>): Promise<T> {
    const agent = await this.ready();
    if (!agent.session) await this.renew(agent);
    try {
      return await request(agent);
    } catch (error) {
      if (!sessionRejected(error)) throw error;
    }
    await this.renew(agent);
    return request(agent);
  }

  /**
   * Throws NeedsReconnect when the PDS says the account is not active (deactivated, taken down): asked
   * when a read fails, since a PDS answers reads of an inactive account as if its repository were gone.
   * When the question itself fails, the read's own failure is the one to report: this returns.
   */
  async assertActive(): Promise<void> {
    let answer: { handle: string; active?: boolean; status?: string };
    try {
      answer = (await this.call((agent) => agent.com.atproto.server.getSession())).data;
    } catch (error) {
      if (error instanceof NeedsReconnect) throw error;
      return;
    }
    if (answer.active === false) {
      throw new NeedsReconnect(
        `Bluesky says ${answer.handle} is ${answer.status ?? 'not active'}`,
        'reactivate it on Bluesky',
      );
    }
  }

  /** Stores the session when it changed (refreshed, or made anew); a failure to store is only logged. */
  async store(): Promise<void> {
    const session = this.agent ? (await this.agent.catch(() => undefined))?.session : undefined;
    const stored = this.stored;
    if (!session || (session.accessJwt === stored?.accessJwt && session.refreshJwt === stored?.refreshJwt)) {
      return;
    }
    const { accessJwt, refreshJwt, did, handle } = session;
    const fresh = { accessJwt, refreshJwt, did, handle };
    try {
      const { appPassword } = readSecret(this.connection.secret);
      await this.context.saveSecret(JSON.stringify({ appPassword, session: fresh } satisfies BlueskySecret));
      this.stored = fresh;
    } catch (error) {
      const message = this.hide(error instanceof Error ? error.message : String(error));
      this.context.log(`Could not store the new Bluesky session of ${this.connection.account}: ${message}`);
    }
  }

  /** `text` without the app password or any token. */
  hide(text: string): string {
    let appPassword = '';
    try {
      appPassword = readSecret(this.connection.secret).appPassword;
    } catch {
      // No password to hide in an unreadable secret; the JWT pattern still applies.
    }
    return hideSecrets(text, [appPassword]);
  }

  /**
   * Refreshes the session, or makes a new one with the app password when the refresh is refused. A new
   * session says whether the account is active: one deactivated or taken down cannot publish.
   */
  private renew(agent: AtpAgent): Promise<void> {
    this.renewing ??= (async () => {
      if (!(await this.refresh(agent))) await this.login(agent);
      const session = agent.session;
      if (session?.active === false) {
        throw new NeedsReconnect(
          `Bluesky says ${session.handle} is ${session.status ?? 'not active'}`,
          'reactivate it on Bluesky',
        );
      }
    })().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** False when there is no session to refresh, or the PDS refused to refresh it. */
  private async refresh(agent: AtpAgent): Promise<boolean> {
    if (!agent.session) return false;
    try {
      await agent.sessionManager.refreshSession();
      return true;
    } catch (error) {
      if (sessionRejected(error)) return false;
      throw error;
    }
  }

  private async login(agent: AtpAgent): Promise<void> {
    const { appPassword } = readSecret(this.connection.secret);
    try {
      // By DID: a handle can change, the DID cannot.
      await agent.login({ identifier: this.connection.accountId, password: appPassword });
    } catch (error) {
      if (!isXrpcFailure(error)) throw error;
      const said = this.hide(error.message);
      if (ACCOUNT_ERRORS.has(error.error ?? '')) {
        throw new NeedsReconnect(`Bluesky refused ${this.connection.account} (${said})`);
      }
      if (error.status === 401) {
        throw new NeedsReconnect(
          `Bluesky refused the app password of ${this.connection.account} (${said}); it may have been revoked`,
          APP_PASSWORD_ADVICE,
        );
      }
      throw error;
    }
  }
}
