/**
 * A stand-in for Meta's Graph API (Facebook Pages) on 127.0.0.1, on the fake-platform kit, answering as
 * developers.facebook.com's pages say (and, where they are silent, as integrators report it):
 *
 * - Facebook Login's manual flow: the dialog `/{version}/dialog/oauth` (approved at once, redirecting
 *   with `code` and `state` to a registered redirect URI), the token endpoint `GET
 *   /{version}/oauth/access_token` (a code works once and for 10 minutes on the stand-in's clock and
 *   only with its redirect URI; a short-lived token of an hour; `grant_type=fb_exchange_token` gives a
 *   long-lived one of 60 days);
 * - `/me/accounts` (the Pages with their Page tokens, `paging.next` when `accountsPageSize` is small),
 *   `/me/businesses` and `/{business}/owned_pages` (a Page only a Business Portfolio lists), refused with
 *   code 200 without `business_management`;
 * - `/{page}/feed` (message, link, place, `attached_media[n]` of the Page's unpublished photos),
 *   `/{page}/photos` (multipart `source`, its bytes counted; `published=false` keeps it unpublished),
 *   `/{page}/videos` (multipart `source`, or the chunked phases start/transfer/finish with each
 *   `video_file_chunk` checked against the offsets asked; the video processes for
 *   `videoProcessingMs`, or fails),
 *   `/{page}/photo_stories`, `/{id}/comments`, `GET /{id}` (a Page, a video's `status`), read-after-write
 *   `fields=permalink_url`;
 * - Reels and video Stories in three phases (`/{page}/video_reels`, `/{page}/video_stories`: start
 *   answers `video_id` and `upload_url`; the bytes to `/video-upload/{version}/{id}` with `offset` and
 *   `file_size` headers and the Page token as `OAuth`; finish with `video_state=PUBLISHED` for a Reel),
 *   at most `reelsPerDay` Reels a Page in 24 hours (code 613 past it), then processing for
 *   `videoProcessingMs` with its phases, or failing in the processing phase (`shortVideoFails`);
 * - errors in Meta's envelope `{ error: { message, type, code, error_subcode, error_user_msg,
 *   fbtrace_id } }` with HTTP 400 (500 for codes 1 and 2): 190/460 for a revoked token, 190/463 for an
 *   expired one, 100 for a bad parameter, 200 for a token of another Page; `graphError()` scripts others
 *   (4, 17, 32, 613, 368, 80001…) through the kit's `answerNext`;
 * - `X-App-Usage` on user-token answers and `X-Business-Use-Case-Usage` on Page answers, from the kit's
 *   per-Page counters (percent used; `estimated_time_to_regain_access` in minutes once spent). Meta sends
 *   no Retry-After: the stand-in adds one only when a test names a wait in seconds (the kit's
 *   `rateLimitNext({ retryAfterSeconds })`), otherwise the wait is the minutes of the usage header.
 *
 * The kit scripts the rest: 5xx, hangs, a post created whose answer is lost, a dropped connection.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';

export const GRAPH_VERSION_PATTERN = /^v\d+\.\d+$/;
export const CODE_LIFETIME_MS = 10 * 60_000;
export const LONG_LIVED_SECONDS = 5_183_944;

export interface FacebookServerOptions {
  now?: () => number;
  /** How long (by `now`) an uploaded video processes. Default 2,000 ms. */
  videoProcessingMs?: number;
  videoProcessingFails?: boolean;
  /** Pages per answer of `/me/accounts` before `paging.next`. Default 100. */
  accountsPageSize?: number;
  /** The chunk size the chunked video upload asks for. Default 4 MiB. */
  videoChunkBytes?: number;
  /** Requests per Page before its business-use-case limit is spent. Default 1,000. */
  pageCallLimit?: number;
  /** Reels a Page may publish in 24 hours (Meta's Reels guide: 30). */
  reelsPerDay?: number;
  /** A Reel or video Story fails processing with this message. */
  shortVideoFails?: string;
}

/** A Reel or a video Story, from its upload session to its publication. */
export interface FacebookShortVideo {
  id: string;
  pageId: string;
  surface: 'reel' | 'story';
  bytes: number | null;
  finished: boolean;
  description: string;
  collaborators: string[];
  videoState: string | null;
  readyAtMs: number;
  postId: string | null;
}

export interface FacebookPost {
  id: string;
  pageId: string;
  kind: 'feed' | 'photo' | 'video' | 'story' | 'reel';
  message: string;
  link: string | null;
  place: string | null;
  photoIds: string[];
  createdAtMs: number;
}

export interface FacebookPhoto {
  id: string;
  pageId: string;
  published: boolean;
  used: boolean;
  bytes: number;
  type: string;
}

export interface FacebookVideo {
  id: string;
  pageId: string;
  description: string;
  bytes: number;
  readyAtMs: number;
}

interface Page {
  id: string;
  name: string;
  token: string;
  viaBusiness: boolean;
}

export type FacebookServer = Awaited<ReturnType<typeof startFacebookServer>>;

const trace = () => randomBytes(8).toString('base64url');

/** An answer in Meta's error envelope. */
export function graphError(
  code: number,
  message: string,
  extra: { status?: number; subcode?: number; userMessage?: string; headers?: Record<string, string> } = {},
): FakeAnswer {
  return {
    status: extra.status ?? (code === 1 || code === 2 ? 500 : 400),
    ...(extra.headers ? { headers: extra.headers } : {}),
    body: {
      error: {
        message,
        type: code === 190 || code === 102 ? 'OAuthException' : 'GraphMethodException',
        code,
        ...(extra.subcode === undefined ? {} : { error_subcode: extra.subcode }),
        ...(extra.userMessage ? { error_user_title: 'Error', error_user_msg: extra.userMessage } : {}),
        is_transient: code === 1 || code === 2,
        fbtrace_id: trace(),
      },
    },
  };
}

const invalid = (message: string) => graphError(100, `(#100) ${message}`);

export async function startFacebookServer(options: FacebookServerOptions = {}) {
  const now = options.now ?? Date.now;
  const app = {
    clientId: String(1_000_000_000 + Math.floor(Math.random() * 1e9)),
    clientSecret: randomBytes(16).toString('hex'),
    redirectUris: ['http://localhost:8788/callback'],
  };
  const codes = new Map<string, { redirectUri: string; scopes: string[]; atMs: number; used: boolean }>();
  /** User tokens: whether long-lived, when they expire, the scopes granted. */
  const userTokens = new Map<string, { long: boolean; expiresAtMs: number; scopes: string[] }>();
  const pages: Page[] = [];
  const posts: FacebookPost[] = [];
  const photos = new Map<string, FacebookPhoto>();
  const videos = new Map<string, FacebookVideo>();
  const shortVideos = new Map<string, FacebookShortVideo>();
  const comments: { id: string; objectId: string; message: string }[] = [];
  const sessions = new Map<
    string,
    { id: string; videoId: string; pageId: string; size: number; received: number; finished: boolean }
  >();
  /** The size of each chunk transferred, in order. */
  const transfers: number[] = [];
  let nextId = 100_000;
  const newId = () => String(++nextId);
  let kit: Awaited<ReturnType<typeof startFakePlatform>>;

  const tokenOf = (request: FakeRequest): string | undefined =>
    /^(?:Bearer|OAuth)\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim() ??
    request.query.get('access_token') ??
    new Map(request.body.fields).get('access_token');
  const pageOfToken = (request: FakeRequest) => pages.find((page) => page.token === tokenOf(request));
  const field = (request: FakeRequest, name: string) => new Map(request.body.fields).get(name);
  const wantsPermalink = (request: FakeRequest) =>
    (request.query.get('fields') ?? field(request, 'fields') ?? '').includes('permalink_url');

  const addPage = (name: string, viaBusiness = false): Page => {
    const page = { id: newId(), name, token: '', viaBusiness };
    page.token = kit.credentials.issue();
    pages.push(page);
    return page;
  };

  /** A user-token route: the token must be a user token of this sign-in and not expired. */
  const asUser =
    (work: (request: FakeRequest, scopes: string[]) => FakeAnswer) =>
    (request: FakeRequest): FakeAnswer => {
      const user = userTokens.get(tokenOf(request) ?? '');
      if (!user) return graphError(190, 'Invalid OAuth access token - Cannot parse access token');
      if (user.expiresAtMs <= now()) {
        return graphError(190, 'Error validating access token: Session has expired.', { subcode: 463 });
      }
      const answer = work(request, user.scopes);
      const { limit = 1, remaining = 1 } = request.rateLimit ?? {};
      const used = Math.round(((limit - remaining) / Math.max(1, limit)) * 100);
      const appUsage = JSON.stringify({ call_count: used, total_cputime: 0, total_time: 0 });
      return { ...answer, headers: { ...answer.headers, 'x-app-usage': appUsage } };
    };

  /** A Page-token route for `params.page`: a token of another Page is refused with code 200. */
  const asPage =
    (work: (request: FakeRequest, page: Page) => FakeAnswer) =>
    (request: FakeRequest): FakeAnswer => {
      const page = pageOfToken(request);
      if (!page) {
        return graphError(
          200,
          '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
        );
      }
      if (request.params.page !== undefined && request.params.page !== page.id) {
        return graphError(200, '(#200) The Page token does not belong to this Page');
      }
      return work(request, page);
    };

  const permalink = (request: FakeRequest, id: string) =>
    wantsPermalink(request)
      ? { permalink_url: `https://www.facebook.com/${id.replace('_', '/posts/')}` }
      : {};

  function createPost(page: Page, kind: FacebookPost['kind'], values: Partial<FacebookPost>): FacebookPost {
    const post: FacebookPost = {
      id: `${page.id}_${newId()}`,
      pageId: page.id,
      kind,
      message: '',
      link: null,
      place: null,
      photoIds: [],
      createdAtMs: now(),
      ...values,
    };
    posts.push(post);
    return post;
  }

  function feed(request: FakeRequest, page: Page): FakeAnswer {
    const form = new Map(request.body.fields);
    const message = form.get('message') ?? '';
    const link = form.get('link') ?? null;
    if ([...message].length > 63_206) return invalid('The message is too long.');
    const photoIds: string[] = [];
    for (const [key, value] of request.body.fields) {
      if (!/^attached_media\[\d+\]$/.test(key)) continue;
      let id: unknown;
      try {
        id = (JSON.parse(value) as { media_fbid?: unknown }).media_fbid;
      } catch {
        return invalid('Param attached_media must be an array of objects with a media_fbid.');
      }
      const photo = photos.get(String(id));
      if (!photo || photo.pageId !== page.id || photo.published || photo.used) {
        return invalid(`Invalid media_fbid ${String(id)}: it is not an unpublished photo of the Page.`);
      }
      photoIds.push(photo.id);
    }
    if (!message && !link && photoIds.length === 0) return invalid('Missing message or attachment.');
    for (const id of photoIds) photos.get(id)!.used = true;
    const post = createPost(page, 'feed', { message, link, place: form.get('place') ?? null, photoIds });
    return { status: 200, body: { id: post.id, ...permalink(request, post.id) } };
  }

  function uploadPhoto(request: FakeRequest, page: Page): FakeAnswer {
    const file = request.body.files.find((candidate) => candidate.field === 'source');
    if (!file && !field(request, 'url')) return invalid('Missing source or url.');
    if (file && file.size > 10 * 1024 * 1024)
      return graphError(100, '(#100) Photos must be less than 10 MB.');
    const published = field(request, 'published') !== 'false';
    const photo: FacebookPhoto = {
      id: newId(),
      pageId: page.id,
      published,
      used: false,
      bytes: file?.size ?? 0,
      type: file?.type ?? '',
    };
    photos.set(photo.id, photo);
    if (!published) return { status: 200, body: { id: photo.id } };
    const post = createPost(page, 'photo', {
      message: field(request, 'message') ?? field(request, 'caption') ?? '',
      place: field(request, 'place') ?? null,
      photoIds: [photo.id],
    });
    return { status: 200, body: { id: photo.id, post_id: post.id, ...permalink(request, post.id) } };
  }

  /** The chunked upload's phases on the same route: start, transfer (the chunk Meta asked for), finish. */
  function videoPhase(request: FakeRequest, page: Page, phase: string): FakeAnswer {
    const chunkBytes = options.videoChunkBytes ?? 4 * 1024 * 1024;
    if (phase === 'start') {
      const size = Number(field(request, 'file_size'));
      if (!Number.isInteger(size) || size <= 0)
        return invalid('file_size is required for upload_phase=start.');
      const session = { id: newId(), videoId: newId(), pageId: page.id, size, received: 0, finished: false };
      sessions.set(session.id, session);
      return {
        status: 200,
        body: {
          video_id: session.videoId,
          upload_session_id: session.id,
          start_offset: '0',
          end_offset: String(Math.min(chunkBytes, size)),
        },
      };
    }
    const session = sessions.get(field(request, 'upload_session_id') ?? '');
    if (!session || session.pageId !== page.id || session.finished)
      return invalid('Invalid upload_session_id.');
    if (phase === 'transfer') {
      const chunk = request.body.files.find((candidate) => candidate.field === 'video_file_chunk');
      const expected = Math.min(chunkBytes, session.size - session.received);
      if (Number(field(request, 'start_offset')) !== session.received || !chunk || chunk.size !== expected) {
        return graphError(6000, 'There was a problem uploading your video file. Please try again.', {
          subcode: 1363037,
        });
      }
      session.received += chunk.size;
      transfers.push(chunk.size);
      const end = Math.min(session.received + chunkBytes, session.size);
      return { status: 200, body: { start_offset: String(session.received), end_offset: String(end) } };
    }
    if (phase === 'finish') {
      if (session.received !== session.size) return invalid('The upload is not complete.');
      session.finished = true;
      const video: FacebookVideo = {
        id: session.videoId,
        pageId: page.id,
        description: field(request, 'description') ?? '',
        bytes: session.received,
        readyAtMs: now() + (options.videoProcessingMs ?? 2_000),
      };
      videos.set(video.id, video);
      createPost(page, 'video', { id: video.id, message: video.description });
      return { status: 200, body: { success: true } };
    }
    return invalid(`Unknown upload_phase ${phase}.`);
  }

  function uploadVideo(request: FakeRequest, page: Page): FakeAnswer {
    const phase = field(request, 'upload_phase');
    if (phase) return videoPhase(request, page, phase);
    const file = request.body.files.find((candidate) => candidate.field === 'source');
    if (!file && !field(request, 'file_url')) return invalid('Missing source or file_url.');
    const video: FacebookVideo = {
      id: newId(),
      pageId: page.id,
      description: field(request, 'description') ?? '',
      bytes: file?.size ?? 0,
      readyAtMs: now() + (options.videoProcessingMs ?? 2_000),
    };
    videos.set(video.id, video);
    createPost(page, 'video', { id: video.id, message: video.description });
    return { status: 200, body: { id: video.id } };
  }

  function photoStory(request: FakeRequest, page: Page): FakeAnswer {
    const photo = photos.get(field(request, 'photo_id') ?? '');
    if (!photo || photo.pageId !== page.id || photo.published || photo.used) {
      return invalid('photo_id must be an unpublished photo of the Page not used before.');
    }
    photo.used = true;
    const post = createPost(page, 'story', { photoIds: [photo.id] });
    return { status: 200, body: { success: true, post_id: post.id } };
  }

  /** `/{page}/video_reels` and `/{page}/video_stories`: the start and the finish of the three phases. */
  const shortVideoPhase =
    (surface: FacebookShortVideo['surface']) =>
    (request: FakeRequest, page: Page): FakeAnswer => {
      const phase = field(request, 'upload_phase') ?? request.query.get('upload_phase');
      if (phase === 'start') {
        const video: FacebookShortVideo = {
          id: newId(),
          pageId: page.id,
          surface,
          bytes: null,
          finished: false,
          description: '',
          collaborators: [],
          videoState: null,
          readyAtMs: 0,
          postId: null,
        };
        shortVideos.set(video.id, video);
        const uploadUrl = `${kit.url}/video-upload/${request.params.version}/${video.id}`;
        return { status: 200, body: { video_id: video.id, upload_url: uploadUrl } };
      }
      if (phase !== 'finish') return invalid(`Unknown upload_phase ${String(phase)}.`);
      const video = shortVideos.get(field(request, 'video_id') ?? '');
      if (!video || video.pageId !== page.id || video.surface !== surface || video.finished) {
        return invalid('Invalid video_id.');
      }
      if (video.bytes === null) return invalid('The video has not been uploaded.');
      const state = field(request, 'video_state') ?? null;
      if (surface === 'reel') {
        if (!['PUBLISHED', 'DRAFT', 'SCHEDULED'].includes(state ?? '')) {
          return invalid('video_state must be one of PUBLISHED, DRAFT, SCHEDULED.');
        }
        const dayAgo = now() - 86_400_000;
        const published = posts.filter(
          (p) => p.pageId === page.id && p.kind === 'reel' && p.createdAtMs > dayAgo,
        );
        if (published.length >= (options.reelsPerDay ?? 30)) {
          return graphError(613, '(#613) Calls to this api have exceeded the rate limit.', {
            userMessage: 'This Page has published the most Reels it may in 24 hours.',
          });
        }
        try {
          video.collaborators = JSON.parse(field(request, 'collaborators') ?? '[]') as string[];
        } catch {
          return invalid('collaborators must be a JSON array.');
        }
      }
      video.finished = true;
      video.videoState = state;
      video.description = field(request, 'description') ?? '';
      video.readyAtMs = now() + (options.videoProcessingMs ?? 2_000);
      if (surface === 'reel') {
        createPost(page, 'reel', { id: video.id, message: video.description });
        return { status: 200, body: { success: true } };
      }
      video.postId = createPost(page, 'story', { photoIds: [] }).id;
      return { status: 200, body: { success: true, post_id: video.postId } };
    };

  /** The bytes of a Reel or a video Story (rupload), with the Page's token as `OAuth`. */
  function shortVideoBytes(request: FakeRequest): FakeAnswer {
    const video = shortVideos.get(request.params.id ?? '');
    const page = pageOfToken(request);
    const refuse = (message: string) => ({
      status: 400,
      body: { debug_info: { retriable: false, type: 'ProcessingFailedError', message } },
    });
    if (!video || !page || video.pageId !== page.id) return refuse('Invalid video id or token.');
    if (!/^OAuth /.test(String(request.headers.authorization ?? ''))) return refuse('Expected OAuth.');
    const size = Number(request.headers.file_size);
    if (request.headers.offset !== '0' || size !== request.body.bytes.length) {
      return refuse(`The offset or file_size does not match the ${request.body.bytes.length} bytes sent.`);
    }
    video.bytes = size;
    return { status: 200, body: { success: true } };
  }

  function shortVideoStatus(video: FacebookShortVideo): FakeAnswer {
    const done = now() >= video.readyAtMs;
    const failed = done && options.shortVideoFails !== undefined;
    const processing = failed
      ? { status: 'error', errors: [{ code: 1363008, message: options.shortVideoFails }] }
      : { status: done ? 'complete' : 'in_progress' };
    const publishing = {
      status: done && !failed ? 'complete' : 'not_started',
      ...(done && !failed ? { publish_status: 'published' } : {}),
    };
    return {
      status: 200,
      body: {
        id: video.id,
        status: {
          video_status: failed ? 'error' : done ? 'ready' : 'processing',
          uploading_phase: { status: 'complete', bytes_transfered: video.bytes },
          processing_phase: processing,
          publishing_phase: publishing,
        },
        ...(video.surface === 'reel' ? { permalink_url: `/reel/${video.id}` } : {}),
      },
    };
  }

  function readNode(request: FakeRequest, page: Page): FakeAnswer {
    const id = request.params.id!;
    if (id === page.id) return { status: 200, body: { id: page.id, name: page.name } };
    const short = shortVideos.get(id);
    if (short?.finished && short.pageId === page.id) return shortVideoStatus(short);
    const video = videos.get(id);
    if (!video || video.pageId !== page.id) {
      return graphError(100, `(#100) Unsupported get request. Object with ID '${id}' does not exist`, {
        subcode: 33,
      });
    }
    const state = now() < video.readyAtMs ? 'processing' : options.videoProcessingFails ? 'error' : 'ready';
    return {
      status: 200,
      body: {
        id: video.id,
        status: { video_status: state, processing_progress: state === 'processing' ? 50 : 100 },
        permalink_url: `/${page.id}/videos/${video.id}/`,
      },
    };
  }

  function comment(request: FakeRequest, page: Page): FakeAnswer {
    const objectId = request.params.id!;
    if (!posts.some((post) => post.id === objectId && post.pageId === page.id)) {
      return graphError(100, `(#100) Object with ID '${objectId}' does not exist`, { subcode: 33 });
    }
    const message = field(request, 'message') ?? '';
    if (!message) return invalid('Missing message.');
    const id = `${objectId.split('_').pop()}_${newId()}`;
    comments.push({ id, objectId, message });
    return { status: 200, body: { id } };
  }

  function dialog(request: FakeRequest): FakeAnswer {
    const q = request.query;
    const page = (message: string): FakeAnswer => ({
      status: 400,
      headers: { 'content-type': 'text/html' },
      body: `<html><body><p>${message}</p></body></html>`,
    });
    if (!GRAPH_VERSION_PATTERN.test(request.params.version ?? '')) return page('Unknown version.');
    if (q.get('client_id') !== app.clientId) return page('Invalid App ID.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!app.redirectUris.includes(redirectUri)) {
      return page(
        "URL Blocked: This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.",
      );
    }
    if (q.get('response_type') && q.get('response_type') !== 'code')
      return page('Unsupported response_type.');
    const code = randomBytes(24).toString('base64url');
    const scopes = (q.get('scope') ?? '').split(',').filter(Boolean);
    codes.set(code, { redirectUri, scopes, atMs: now(), used: false });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.get('state') ?? '');
    return { status: 302, headers: { location: `${target.href}#_=_` } };
  }

  function accessToken(request: FakeRequest): FakeAnswer {
    const q = request.query;
    if (q.get('client_id') !== app.clientId || q.get('client_secret') !== app.clientSecret) {
      return graphError(1, 'Error validating client secret.', { status: 400, subcode: undefined });
    }
    const issue = (long: boolean, scopes: string[]): FakeAnswer => {
      const token = kit.credentials.issue();
      const seconds = long ? LONG_LIVED_SECONDS : 3_600;
      userTokens.set(token, { long, expiresAtMs: now() + seconds * 1000, scopes });
      return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: seconds } };
    };
    if (q.get('grant_type') === 'fb_exchange_token') {
      const short = userTokens.get(q.get('fb_exchange_token') ?? '');
      if (!short || short.expiresAtMs <= now()) {
        return graphError(190, 'Error validating access token: Session has expired.', { subcode: 463 });
      }
      return issue(true, short.scopes);
    }
    const code = codes.get(q.get('code') ?? '');
    if (!code || code.used || now() - code.atMs > CODE_LIFETIME_MS) {
      return graphError(100, 'This authorization code has been used.', { subcode: 36009 });
    }
    code.used = true;
    if (q.get('redirect_uri') !== code.redirectUri) {
      return graphError(
        100,
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        { subcode: 36008 },
      );
    }
    return issue(false, code.scopes);
  }

  function listPages(request: FakeRequest, list: Page[], path: string): FakeAnswer {
    const size = options.accountsPageSize ?? 100;
    const after = Number(request.query.get('after') ?? 0);
    const data = list.slice(after, after + size).map((page) => ({
      id: page.id,
      name: page.name,
      access_token: page.token,
      tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
    }));
    const more = after + size < list.length;
    const next = new URL(`${kit.url}${path}`);
    for (const [key, value] of request.query) next.searchParams.set(key, value);
    next.searchParams.set('after', String(after + size));
    return { status: 200, body: { data, paging: more ? { next: next.href } : {} } };
  }

  const v = '/:version';
  kit = await startFakePlatform({
    now,
    tokenOf,
    accountOf: (request) => pageOfToken(request)?.id ?? tokenOf(request),
    rateLimit: {
      limit: options.pageCallLimit ?? 1_000,
      windowMs: 3_600_000,
      headers: (state) => {
        const percent = Math.round(((state.limit - state.remaining) / Math.max(1, state.limit)) * 100);
        const regain = state.remaining <= 0 ? Math.max(1, Math.ceil((state.resetAtMs - now()) / 60_000)) : 0;
        const entry = {
          type: 'pages',
          call_count: percent,
          total_cputime: 1,
          total_time: 1,
          estimated_time_to_regain_access: regain,
        };
        return { 'x-business-use-case-usage': JSON.stringify({ [pages[0]?.id ?? '0']: [entry] }) };
      },
    },
    routes: [
      { method: 'GET', path: `${v}/dialog/oauth`, handle: dialog },
      { method: 'GET', path: `${v}/oauth/access_token`, handle: accessToken },
      {
        method: 'GET',
        path: `${v}/me/accounts`,
        auth: true,
        handle: asUser((request) =>
          listPages(
            request,
            pages.filter((page) => !page.viaBusiness),
            request.path,
          ),
        ),
      },
      {
        method: 'GET',
        path: `${v}/me/businesses`,
        auth: true,
        handle: asUser((_request, scopes) =>
          scopes.includes('business_management')
            ? { status: 200, body: { data: [{ id: 'b-777', name: 'Acme Holdings' }], paging: {} } }
            : graphError(200, '(#200) Requires business_management permission to manage the object'),
        ),
      },
      {
        method: 'GET',
        path: `${v}/:business/owned_pages`,
        auth: true,
        handle: asUser((request) =>
          listPages(
            request,
            pages.filter((page) => page.viaBusiness),
            request.path,
          ),
        ),
      },
      {
        method: 'GET',
        path: `${v}/:business/client_pages`,
        auth: true,
        handle: asUser(() => ({ status: 200, body: { data: [], paging: {} } })),
      },
      { method: 'POST', path: `${v}/:page/feed`, auth: true, handle: asPage(feed) },
      { method: 'POST', path: `${v}/:page/photos`, auth: true, handle: asPage(uploadPhoto) },
      { method: 'POST', path: `${v}/:page/videos`, auth: true, handle: asPage(uploadVideo) },
      { method: 'POST', path: `${v}/:page/photo_stories`, auth: true, handle: asPage(photoStory) },
      { method: 'POST', path: `${v}/:page/video_reels`, auth: true, handle: asPage(shortVideoPhase('reel')) },
      {
        method: 'POST',
        path: `${v}/:page/video_stories`,
        auth: true,
        handle: asPage(shortVideoPhase('story')),
      },
      { method: 'POST', path: '/video-upload/:version/:id', auth: true, handle: shortVideoBytes },
      { method: 'POST', path: `${v}/:id/comments`, auth: true, handle: asPage(comment) },
      { method: 'GET', path: `${v}/:id`, auth: true, handle: asPage(readNode) },
    ],
    errors: {
      failure: (status, said) =>
        graphError(
          status >= 500 ? 2 : 100,
          said ?? 'An unexpected error has occurred. Please retry your request later.',
          {
            status,
          },
        ),
      rateLimited: ({ retryAfterSeconds, resetAtMs }) => {
        const minutes = Math.max(1, Math.ceil((resetAtMs - now()) / 60_000));
        const usage = {
          type: 'pages',
          call_count: 100,
          total_cputime: 100,
          total_time: 100,
          estimated_time_to_regain_access: minutes,
        };
        return graphError(
          80_001,
          '(#80001) There have been too many calls to this Page account. Wait a bit and try again.',
          {
            headers: {
              'x-business-use-case-usage': JSON.stringify({ [pages[0]?.id ?? '0']: [usage] }),
              ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
            },
          },
        );
      },
      unauthorized: (problem) =>
        problem === 'revoked'
          ? graphError(
              190,
              'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
              { subcode: 460 },
            )
          : graphError(190, 'Invalid OAuth access token - Cannot parse access token'),
      notFound: (request) => graphError(100, `(#100) Unknown path components: ${request.path}`),
    },
  });

  const main = addPage('Acme Coffee');
  addPage('Acme Bakery');
  const portfolio = addPage('Acme Roastery', true);

  return {
    kit,
    url: kit.url,
    app,
    pages,
    main,
    portfolio,
    posts,
    photos,
    videos,
    shortVideos,
    comments,
    transfers,
    codes,
    userTokens,
    /** A long-lived user token with every scope the connector asks for (a test that starts signed in). */
    userToken(
      scopes = 'pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement,publish_video,business_management',
    ): string {
      const token = kit.credentials.issue();
      userTokens.set(token, {
        long: true,
        expiresAtMs: now() + LONG_LIVED_SECONDS * 1000,
        scopes: scopes.split(','),
      });
      return token;
    },
    /** Every secret: tokens, codes, the app secret. */
    secrets: () => [...kit.credentials.all(), ...codes.keys(), app.clientSecret],
    close: () => kit.close(),
  };
}
