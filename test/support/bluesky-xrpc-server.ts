/**
 * A Bluesky PDS stand-in on 127.0.0.1, on the fake-platform kit: the XRPC methods the connector uses
 * (com.atproto.server.createSession, refreshSession, getSession; com.atproto.repo.getRecord,
 * createRecord, uploadBlob; com.atproto.identity.resolveHandle) for one account signed in with an app
 * password, answering with the XRPC error names a PDS gives. It keeps the records created, so tests
 * count posts where they land; the failures a real PDS cannot be made to show (429, 5xx, no answer, a
 * lost answer) are the kit's scripted trouble (`kit`), aimed at a method with `route(method)`.
 * test/support/bluesky-pds.ts runs a real PDS (Node 22) for what only a real one shows.
 */
import { randomBytes } from 'node:crypto';
import {
  type FakeAnswer,
  type FakePlatform,
  type FakeRequest,
  startFakePlatform,
} from './fake-platform/kit.js';

/** A valid CID, given to every record and blob (the stand-in does not hash what it keeps). */
export const FAKE_CID = 'bafyreifxratkkleior2lqcscb7k4wn6akc5pnm26v6b3ccwv62lbqbdiq4';

export interface XrpcServerOptions {
  handle?: string;
  did?: string;
  appPassword?: string;
  /** A session of the account the PDS already knows (a stored secret's tokens). */
  session?: { accessJwt: string; refreshJwt: string };
  /** Send RateLimit-* headers of the account's counters on every answer. Off by default. */
  rateLimit?: { limit?: number; windowSeconds?: number };
  now?: () => number;
}

export interface StoredRecord {
  uri: string;
  cid: string;
  collection: string;
  rkey: string;
  value: Record<string, unknown>;
}

export interface XrpcServer {
  /** The service URL (`http://127.0.0.1:<port>`). */
  url: string;
  handle: string;
  did: string;
  appPassword: string;
  /** The records of the account's repository, in the order they were created. */
  records: StoredRecord[];
  /** The kit underneath: its request log and every kind of scripted trouble. */
  kit: FakePlatform;
  /** The kit's route of an XRPC method: `route('com.atproto.repo.createRecord')`. */
  route(method: string): string;
  /** The XRPC methods called, in order. */
  methods(): string[];
  /** Puts a record in the repository, as if it had been created before. */
  putRecord(collection: string, rkey: string, value: Record<string, unknown>): StoredRecord;
  close(): Promise<void>;
}

const route = (method: string) => `/xrpc/${method}`;
const ERROR_NAMES: Record<number, string> = {
  400: 'InvalidRequest',
  401: 'AuthenticationRequired',
  403: 'Forbidden',
  408: 'RequestTimeout',
  413: 'PayloadTooLarge',
  500: 'InternalServerError',
  501: 'MethodNotImplemented',
  502: 'UpstreamFailure',
  503: 'NotEnoughResources',
  504: 'UpstreamTimeout',
};

const xrpcError = (status: number, error: string, message: string): FakeAnswer => ({
  status,
  body: { error, message },
});

export async function startXrpcServer(options: XrpcServerOptions = {}): Promise<XrpcServer> {
  const handle = options.handle ?? 'alice.test';
  const did = options.did ?? 'did:plc:alice';
  const appPassword = options.appPassword ?? 'abcd-efgh-ijkl-mnop';
  const now = options.now ?? Date.now;
  const records: StoredRecord[] = [];
  const refreshTokens = new Set<string>();

  const bearerOf = (request: FakeRequest) =>
    /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
  const paramsOf = (request: FakeRequest) => (request.body.json ?? {}) as Record<string, unknown>;
  const isAccount = (repo: unknown) => repo === did || repo === handle;
  const find = (collection: unknown, rkey: unknown) =>
    records.find((record) => record.collection === collection && record.rkey === rkey);

  const putRecord = (collection: string, rkey: string, value: Record<string, unknown>) => {
    const record = { uri: `at://${did}/${collection}/${rkey}`, cid: FAKE_CID, collection, rkey, value };
    records.push(record);
    return record;
  };

  const jwt = (scope: string) => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { scope, sub: did, iat: Math.floor(now() / 1000), jti: randomBytes(8).toString('hex') };
    return `${part({ typ: 'at+jwt', alg: 'ES256K' })}.${part(claims)}.${randomBytes(16).toString('base64url')}`;
  };
  const newSession = (): FakeAnswer => {
    const accessJwt = kit.credentials.issue(jwt('com.atproto.appPass'));
    const refreshJwt = kit.credentials.issue(jwt('com.atproto.refresh'));
    refreshTokens.add(refreshJwt);
    return { status: 200, body: { accessJwt, refreshJwt, handle, did, active: true, emailConfirmed: true } };
  };

  const kit = await startFakePlatform({
    now,
    tokenOf: bearerOf,
    accountOf: (request) => (bearerOf(request) ? did : undefined),
    ...(options.rateLimit && {
      rateLimit: {
        limit: options.rateLimit.limit ?? 3000,
        windowMs: (options.rateLimit.windowSeconds ?? 300) * 1000,
        headers: (state) => ({
          'ratelimit-limit': String(state.limit),
          'ratelimit-remaining': String(state.remaining),
          'ratelimit-reset': String(Math.ceil(state.resetAtMs / 1000)),
          'ratelimit-policy': `${state.limit};w=${options.rateLimit?.windowSeconds ?? 300}`,
        }),
      },
    }),
    routes: [
      {
        method: 'POST',
        path: route('com.atproto.server.createSession'),
        handle: (request) => {
          const { identifier, password } = paramsOf(request);
          const known = isAccount(identifier) && password === appPassword;
          if (!known || kit.credentials.problemOf(appPassword)) {
            return xrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password');
          }
          return newSession();
        },
      },
      {
        method: 'POST',
        path: route('com.atproto.server.refreshSession'),
        auth: true,
        handle: (request) =>
          refreshTokens.has(bearerOf(request) ?? '')
            ? newSession()
            : xrpcError(400, 'InvalidToken', 'Invalid token type'),
      },
      {
        method: 'GET',
        path: route('com.atproto.server.getSession'),
        auth: true,
        handle: () => ({ status: 200, body: { handle, did, active: true, emailConfirmed: true } }),
      },
      {
        method: 'GET',
        path: route('com.atproto.identity.resolveHandle'),
        handle: (request) =>
          request.query.get('handle') === handle
            ? { status: 200, body: { did } }
            : xrpcError(400, 'InvalidRequest', 'Unable to resolve handle'),
      },
      {
        method: 'GET',
        path: route('com.atproto.repo.getRecord'),
        handle: (request) => {
          const found = isAccount(request.query.get('repo'))
            ? find(request.query.get('collection'), request.query.get('rkey'))
            : undefined;
          if (!found) return xrpcError(400, 'RecordNotFound', 'Could not locate record');
          return { status: 200, body: { uri: found.uri, cid: found.cid, value: found.value } };
        },
      },
      {
        method: 'POST',
        path: route('com.atproto.repo.createRecord'),
        auth: true,
        handle: (request) => {
          const { repo, collection, rkey, record } = paramsOf(request);
          if (!isAccount(repo)) return xrpcError(400, 'InvalidRequest', `Could not find repo: ${repo}`);
          if (typeof collection !== 'string' || typeof record !== 'object' || record === null) {
            return xrpcError(400, 'InvalidRequest', 'Input must have the property "record"');
          }
          const key = typeof rkey === 'string' ? rkey : randomBytes(6).toString('hex');
          if (find(collection, key)) return xrpcError(400, 'InvalidRequest', 'Record already exists');
          const created = putRecord(collection, key, record as Record<string, unknown>);
          return { status: 200, body: { uri: created.uri, cid: created.cid, validationStatus: 'valid' } };
        },
      },
      {
        method: 'POST',
        path: route('com.atproto.repo.uploadBlob'),
        auth: true,
        handle: (request) => ({
          status: 200,
          body: {
            blob: {
              $type: 'blob',
              ref: { $link: FAKE_CID },
              mimeType: request.body.type || 'application/octet-stream',
              size: request.body.bytes.length,
            },
          },
        }),
      },
    ],
    errors: {
      failure: (status, said) =>
        xrpcError(status, ERROR_NAMES[status] ?? 'InternalServerError', said ?? `HTTP ${status}`),
      rateLimited: ({ retryAfterSeconds, resetAtMs }) => ({
        ...xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded'),
        headers: {
          'ratelimit-limit': '3000',
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(Math.ceil(resetAtMs / 1000)),
          ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
        },
      }),
      unauthorized: (problem, request) => {
        if (problem === 'missing') return xrpcError(401, 'AuthenticationRequired', 'Authentication Required');
        // A refresh token the PDS no longer takes is said as expired; an access token, as unverifiable.
        return request.route === route('com.atproto.server.refreshSession')
          ? xrpcError(400, 'ExpiredToken', 'Token has been revoked')
          : xrpcError(401, 'InvalidToken', 'Token could not be verified');
      },
      notFound: () => xrpcError(501, 'MethodNotImplemented', 'Method Not Implemented'),
    },
  });
  kit.credentials.issue(appPassword);
  if (options.session) {
    kit.credentials.issue(options.session.accessJwt);
    kit.credentials.issue(options.session.refreshJwt);
    refreshTokens.add(options.session.refreshJwt);
  }

  return {
    url: kit.url,
    handle,
    did,
    appPassword,
    records,
    kit,
    route,
    methods: () => kit.log.map((request) => request.path.replace('/xrpc/', '')),
    putRecord,
    close: () => kit.close(),
  };
}
