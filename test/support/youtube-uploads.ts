/**
 * The resumable upload sessions of the YouTube stand-in (youtube-server.ts), as
 * developers.google.com/youtube/v3/guides/using_resumable_upload_protocol describes them: a session
 * keeps the bytes that arrived in order; each PUT names its place with `Content-Range: bytes a-b/N`
 * (or `bytes *\/N` to ask); an unfinished session answers 308 Resume Incomplete with `Range: bytes=0-N`
 * (none while it has nothing), the last byte answers 200 with the video, and asking a finished session
 * answers the video again. A chunk other than the last is kept only up to a multiple of 256 KiB (Google
 * asks for chunks of that size and may keep fewer bytes than were sent). The bytes themselves are not
 * kept: their count and their SHA-256, so that a 100 MB upload costs the test no memory.
 */
import { createHash, type Hash, randomBytes } from 'node:crypto';
import {
  CUT_CONNECTION,
  type FakeAnswer,
  type FakeRequest,
  type HandlerResult,
  NO_ANSWER,
} from './fake-platform/kit.js';

export const QUANTUM = 256 * 1024;

/** The kit's route of the session's PUTs (the probe and the chunks; the last chunk makes the video). */
export const SESSION_ROUTE = '/upload/youtube/v3/videos/sessions/:id';

export interface UploadSession {
  id: string;
  total: number;
  type: string;
  resource: Record<string, unknown>;
  received: number;
  hash: Hash;
  /** The video once its last byte arrived. */
  videoId: string | null;
  sha256: string | null;
  /** Google no longer has it (expired): 404. */
  gone: boolean;
}

export class UploadSessions {
  readonly sessions = new Map<string, UploadSession>();
  /** The next chunk that reaches this many bytes of its session keeps them and cuts the connection. */
  breakAt: number | null = null;
  /** The next chunk that reaches this many bytes keeps them and is never answered (its process stalls). */
  hangAt: number | null = null;
  /** Each PUT's Content-Range, in order, and what the session had before it. */
  readonly puts: { range: string; had: number; bytes: number }[] = [];

  constructor(
    private readonly baseUrl: () => string,
    private readonly complete: (session: UploadSession) => Record<string, unknown>,
    private readonly error: (status: number, reason: string, message: string) => FakeAnswer,
  ) {}

  open(total: number, type: string, resource: Record<string, unknown>): FakeAnswer {
    const id = randomBytes(16).toString('base64url');
    this.sessions.set(id, {
      id,
      total,
      type,
      resource,
      received: 0,
      hash: createHash('sha256'),
      videoId: null,
      sha256: null,
      gone: false,
    });
    // The session URI is opaque to the client; the stand-in's has a path of its own (SESSION_ROUTE), so
    // that a test can aim trouble at the upload apart from the session's opening.
    const location = `${this.baseUrl()}/upload/youtube/v3/videos/sessions/${id}?uploadType=resumable&upload_id=${id}`;
    return { status: 200, headers: { location }, body: '' };
  }

  /** Every session stops working (they expired). */
  expireAll(): void {
    for (const session of this.sessions.values()) session.gone = true;
  }

  put(request: FakeRequest): HandlerResult {
    const session = this.sessions.get(request.params.id ?? '');
    if (!session || session.gone) return this.error(404, 'notFound', 'Not Found');
    const range = String(request.headers['content-range'] ?? '');
    this.puts.push({ range, had: session.received, bytes: request.body.bytes.length });
    const bytes = request.body.bytes;
    // The kit's log keeps the request: not its bytes (a 100 MB upload would stay in memory).
    request.body.bytes = Buffer.alloc(0);
    const asked = /^bytes \*\/(\d+)$/.exec(range);
    const chunk = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
    if (!asked && !chunk) return this.error(400, 'badRequest', 'Invalid Content-Range header.');
    if (Number((asked ?? chunk)![asked ? 1 : 3]) !== session.total) {
      return this.error(400, 'badRequest', 'The Content-Range total does not match X-Upload-Content-Length.');
    }
    const type = String(request.headers['content-type'] ?? '');
    if (chunk && type !== session.type && type !== 'application/octet-stream') {
      return this.error(
        400,
        'badRequest',
        `The chunk's Content-Type ${type || '(none)'} is not the upload's.`,
      );
    }
    if (chunk && session.videoId === null) {
      const start = Number(chunk[1]);
      const end = Number(chunk[2]) + 1;
      if (end - start !== bytes.length)
        return this.error(400, 'badRequest', 'Content-Range does not match the body.');
      if (start <= session.received && end > session.received) {
        const last = end === session.total;
        let keep = end;
        if (!last) keep = start + Math.floor((end - start) / QUANTUM) * QUANTUM;
        for (const trouble of ['breakAt', 'hangAt'] as const) {
          const at = this[trouble];
          if (at === null || at <= session.received || at >= end) continue;
          this[trouble] = null;
          this.take(session, bytes.subarray(session.received - start, at - start));
          return trouble === 'breakAt' ? CUT_CONNECTION : NO_ANSWER;
        }
        if (keep > session.received)
          this.take(session, bytes.subarray(session.received - start, keep - start));
      }
    }
    if (session.videoId === null && session.received === session.total) {
      session.sha256 = session.hash.digest('hex');
      session.videoId = String(this.complete(session).id);
    }
    if (session.videoId !== null) return { status: 200, body: this.complete(session) };
    return {
      status: 308,
      headers: session.received > 0 ? { range: `bytes=0-${session.received - 1}` } : {},
      body: '',
    };
  }

  private take(session: UploadSession, bytes: Uint8Array): void {
    session.hash.update(bytes);
    session.received += bytes.length;
  }
}
