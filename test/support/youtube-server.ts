/**
 * A YouTube stand-in on 127.0.0.1 on the fake-platform kit, answering as the YouTube Data API v3's
 * reference says: Google's sign-in (google-sign-in.ts), `channels.list mine=true`, `videos.insert` by
 * resumable upload (youtube-uploads.ts: sessions, 308 + Range, probes, broken connections), `videos.list`
 * with `status.uploadStatus` uploaded → processed (or failed with a `failureReason`) after
 * `videoProcessingMs`, `playlistItems.insert` (the channel's playlists only), `commentThreads.insert`.
 * The video resource is checked as YouTube checks it (title required, ≤ 100 characters, description ≤
 * 5,000 bytes, no < or >, tags ≤ 500 characters). Quota as Google counts it: a bucket of uploads a day
 * and 10,000 units a day (channels.list and videos.list 1, playlistItems and commentThreads 50), spent:
 * 403 `quotaExceeded`. Errors in Google's body: `{ error: { code, message, errors: [{ message, domain,
 * reason }], status } }`.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, startFakePlatform } from './fake-platform/kit.js';
import { GoogleSignIn } from './google-sign-in.js';
import { SESSION_ROUTE, type UploadSession, UploadSessions } from './youtube-uploads.js';

export const YOUTUBE_SCOPE = 'https://www.googleapis.com/auth/youtube.force-ssl';

export interface YouTubeChannelInfo {
  id: string;
  title: string;
  handle?: string;
}

export interface YouTubeServerOptions {
  now?: () => number;
  /** The channels of the sign-in (`mine=true`). Default one: "Northwind TV". */
  channels?: YouTubeChannelInfo[];
  /** The channel's playlists. Default `PLroasts`, `PLnews`. */
  playlists?: string[];
  /** How long (by `now`) an uploaded video processes. Default 0: processed at the first read. */
  videoProcessingMs?: number;
  /** Videos fail processing with this `failureReason` (`codec`, `conversion`…). */
  processingFails?: string;
  /** Uploads a day (videos.insert's own bucket). Default 100. */
  uploadsPerDay?: number;
  /** Units a day of everything else. Default 10,000. */
  unitsPerDay?: number;
  commentsDisabled?: boolean;
}

export interface YouTubeVideo {
  id: string;
  channelId: string;
  snippet: { title: string; description: string; tags?: string[] };
  privacyStatus: string;
  bytes: number;
  sha256: string;
  uploadedAtMs: number;
}

export type YouTubeServer = Awaited<ReturnType<typeof startYouTubeServer>>;

const bearerOf = (request: FakeRequest) =>
  /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();

/** Google's error body. */
export function googleError(
  status: number,
  reason: string,
  message: string,
  domain = 'youtube.api',
): FakeAnswer {
  const statuses: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  return {
    status,
    body: {
      error: {
        code: status,
        message,
        errors: [{ message, domain, reason }],
        status: statuses[status] ?? 'UNKNOWN',
      },
    },
  };
}

const QUOTA_MESSAGE =
  'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.';

export async function startYouTubeServer(options: YouTubeServerOptions = {}) {
  const now = options.now ?? Date.now;
  const channels = options.channels ?? [
    { id: 'UCnorthwind0000000000001', title: 'Northwind TV', handle: '@northwindtv' },
  ];
  const playlists = new Set(options.playlists ?? ['PLroasts', 'PLnews']);
  const videos = new Map<string, YouTubeVideo>();
  const playlistItems: { playlistId: string; videoId: string }[] = [];
  const comments: { videoId: string; text: string }[] = [];
  /** Playlists whose inserts fail with this answer for now (a test's trouble aimed at one playlist). */
  const playlistTrouble = new Map<string, FakeAnswer>();
  const spent = { uploads: 0, units: 0 };
  const limits = { uploads: options.uploadsPerDay ?? 100, units: options.unitsPerDay ?? 10_000 };
  let signIn: GoogleSignIn;
  let uploads: UploadSessions;

  /** The token checked (expired, scope), then the quota spent, then the work. */
  const api =
    (
      cost: { units?: number; uploads?: number },
      work: (request: FakeRequest) => FakeAnswer | ReturnType<UploadSessions['put']>,
    ) =>
    (request: FakeRequest) => {
      const token = bearerOf(request) ?? '';
      if (signIn.expired(token)) {
        return googleError(
          401,
          'authError',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
          'global',
        );
      }
      if (!(signIn.scopesOf.get(token) ?? []).includes(YOUTUBE_SCOPE)) {
        return googleError(
          403,
          'insufficientPermissions',
          'Request had insufficient authentication scopes.',
          'global',
        );
      }
      if ((cost.uploads ?? 0) > 0 && spent.uploads + (cost.uploads ?? 0) > limits.uploads) {
        return googleError(403, 'quotaExceeded', QUOTA_MESSAGE, 'youtube.quota');
      }
      if (spent.units + (cost.units ?? 0) > limits.units)
        return googleError(403, 'quotaExceeded', QUOTA_MESSAGE, 'youtube.quota');
      const answer = work(request);
      if (typeof answer === 'object' && answer.status < 300) {
        spent.uploads += cost.uploads ?? 0;
        spent.units += cost.units ?? 0;
      }
      return answer;
    };

  function videoResource(video: YouTubeVideo) {
    const processed = now() - video.uploadedAtMs >= (options.videoProcessingMs ?? 0);
    const failed = processed && options.processingFails !== undefined;
    return {
      kind: 'youtube#video',
      id: video.id,
      snippet: { ...video.snippet, channelId: video.channelId },
      status: {
        uploadStatus: failed ? 'failed' : processed ? 'processed' : 'uploaded',
        ...(failed ? { failureReason: options.processingFails } : {}),
        privacyStatus: video.privacyStatus,
      },
      processingDetails: {
        processingStatus: failed ? 'failed' : processed ? 'succeeded' : 'processing',
        ...(processed
          ? {}
          : {
              processingProgress: {
                timeLeftMs: String(
                  Math.max(0, (options.videoProcessingMs ?? 0) - (now() - video.uploadedAtMs)),
                ),
              },
            }),
      },
    };
  }

  function complete(session: UploadSession) {
    if (session.videoId) return videoResource(videos.get(session.videoId)!);
    const snippet = session.resource.snippet as YouTubeVideo['snippet'];
    const status = (session.resource.status ?? {}) as { privacyStatus?: string };
    const video: YouTubeVideo = {
      id: randomBytes(8).toString('base64url').slice(0, 11),
      channelId: channels[0]!.id,
      snippet,
      privacyStatus: status.privacyStatus ?? 'public',
      bytes: session.total,
      sha256: session.sha256 ?? '',
      uploadedAtMs: now(),
    };
    videos.set(video.id, video);
    return videoResource(video);
  }

  /** videos.insert's checks of the resource (the field reference's limits). */
  function insert(request: FakeRequest): FakeAnswer {
    if (request.query.get('uploadType') !== 'resumable')
      return googleError(400, 'badRequest', 'uploadType must be resumable here.');
    const resource = request.body.json as
      | { snippet?: Record<string, unknown>; status?: Record<string, unknown> }
      | undefined;
    const snippet = resource?.snippet;
    const title = snippet?.title;
    if (typeof title !== 'string' || !title.trim())
      return googleError(
        400,
        'invalidTitle',
        'The request metadata specifies an invalid or empty video title.',
      );
    if ([...title].length > 100 || /[<>]/.test(title))
      return googleError(400, 'invalidTitle', 'The request metadata specifies an invalid video title.');
    const description = typeof snippet?.description === 'string' ? snippet.description : '';
    if (Buffer.byteLength(description) > 5000 || /[<>]/.test(description)) {
      return googleError(
        400,
        'invalidDescription',
        'The request metadata specifies an invalid video description.',
      );
    }
    const tags = Array.isArray(snippet?.tags) ? (snippet.tags as string[]) : [];
    const tagLength =
      tags.reduce((sum, tag) => sum + [...tag].length + (/\s/.test(tag) ? 2 : 0), 0) +
      Math.max(0, tags.length - 1);
    if (tagLength > 500)
      return googleError(400, 'invalidTags', 'The request metadata specifies invalid video keywords.');
    const privacy = resource?.status?.privacyStatus;
    if (privacy !== undefined && !['public', 'unlisted', 'private'].includes(String(privacy))) {
      return googleError(400, 'invalidVideoMetadata', 'The request metadata is invalid.');
    }
    const total = Number(request.headers['x-upload-content-length']);
    const type = String(request.headers['x-upload-content-type'] ?? '');
    if (!Number.isInteger(total) || total <= 0)
      return googleError(400, 'mediaBodyRequired', 'The request does not include the video content.');
    if (!type.startsWith('video/') && type !== 'application/octet-stream')
      return googleError(400, 'invalidVideoMetadata', 'The media type is not a video.');
    return uploads.open(total, type, resource as Record<string, unknown>);
  }

  const kit = await startFakePlatform({
    now,
    tokenOf: bearerOf,
    routes: [
      { method: 'GET', path: '/o/oauth2/v2/auth', handle: (request) => signIn.authorize(request) },
      { method: 'POST', path: '/token', handle: (request) => signIn.token(request) },
      {
        method: 'GET',
        path: '/youtube/v3/channels',
        auth: true,
        handle: api({ units: 1 }, (request) => {
          if (request.query.get('mine') !== 'true')
            return googleError(400, 'missingRequiredParameter', 'No filter selected.');
          const items = channels.map((channel) => ({
            kind: 'youtube#channel',
            id: channel.id,
            snippet: { title: channel.title, ...(channel.handle ? { customUrl: channel.handle } : {}) },
          }));
          return { status: 200, body: { kind: 'youtube#channelListResponse', items } };
        }),
      },
      { method: 'POST', path: '/upload/youtube/v3/videos', auth: true, handle: api({ uploads: 1 }, insert) },
      {
        method: 'PUT',
        path: SESSION_ROUTE,
        auth: true,
        handle: api({}, (request) => uploads.put(request)),
      },
      {
        method: 'GET',
        path: '/youtube/v3/videos',
        auth: true,
        handle: api({ units: 1 }, (request) => {
          const ids = (request.query.get('id') ?? '').split(',');
          const items = ids.flatMap((id) => (videos.has(id) ? [videoResource(videos.get(id)!)] : []));
          return { status: 200, body: { kind: 'youtube#videoListResponse', items } };
        }),
      },
      {
        method: 'POST',
        path: '/youtube/v3/playlistItems',
        auth: true,
        handle: api({ units: 50 }, (request) => {
          const snippet = (request.body.json as { snippet?: Record<string, unknown> } | undefined)?.snippet;
          const playlistId = String(snippet?.playlistId ?? '');
          const videoId = String((snippet?.resourceId as { videoId?: unknown } | undefined)?.videoId ?? '');
          const trouble = playlistTrouble.get(playlistId);
          if (trouble) return trouble;
          if (!playlists.has(playlistId))
            return googleError(
              404,
              'playlistNotFound',
              "The playlist identified with the request's playlistId parameter cannot be found.",
            );
          if (!videos.has(videoId))
            return googleError(
              404,
              'videoNotFound',
              'The video that you are trying to add to the playlist cannot be found.',
            );
          playlistItems.push({ playlistId, videoId });
          return {
            status: 200,
            body: { kind: 'youtube#playlistItem', id: randomBytes(9).toString('base64url'), snippet },
          };
        }),
      },
      {
        method: 'POST',
        path: '/youtube/v3/commentThreads',
        auth: true,
        handle: api({ units: 50 }, (request) => {
          const snippet = (request.body.json as { snippet?: Record<string, unknown> } | undefined)?.snippet;
          const videoId = String(snippet?.videoId ?? '');
          const text = (snippet?.topLevelComment as { snippet?: { textOriginal?: unknown } } | undefined)
            ?.snippet?.textOriginal;
          if (!videos.has(videoId))
            return googleError(
              404,
              'videoNotFound',
              'The video identified by the videoId parameter could not be found.',
            );
          if (options.commentsDisabled)
            return googleError(
              403,
              'commentsDisabled',
              'The video identified by the videoId parameter has disabled comments.',
            );
          if (typeof text !== 'string' || !text)
            return googleError(
              400,
              'commentTextRequired',
              'The comment resource must contain a snippet.topLevelComment.',
            );
          comments.push({ videoId, text });
          return {
            status: 200,
            body: {
              kind: 'youtube#commentThread',
              id: `Ug${randomBytes(12).toString('base64url')}`,
              snippet,
            },
          };
        }),
      },
    ],
    errors: {
      failure: (status, said) =>
        googleError(
          status,
          status >= 500 ? 'backendError' : 'badRequest',
          said ?? (status >= 500 ? 'Backend Error' : 'Bad Request'),
          'global',
        ),
      rateLimited: ({ retryAfterSeconds }) => ({
        ...googleError(429, 'rateLimitExceeded', 'Too many requests.', 'usageLimits'),
        ...(retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(retryAfterSeconds) } }),
      }),
      unauthorized: () =>
        googleError(
          401,
          'authError',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
          'global',
        ),
      notFound: () => ({
        status: 404,
        headers: { 'content-type': 'text/html' },
        body: '<html><body>Error 404 (Not Found)!!1</body></html>',
      }),
    },
  });
  signIn = new GoogleSignIn(kit.credentials, now);
  uploads = new UploadSessions(() => kit.url, complete, googleError);

  return {
    kit,
    url: kit.url,
    signIn,
    uploads,
    videos,
    playlistItems,
    playlistTrouble,
    comments,
    spent,
    channels,
    /** Tokens of an offline sign-in with the connector's scope. */
    tokens: () => signIn.issue([YOUTUBE_SCOPE]),
    /** Every secret the stand-in issued, and the app's. */
    secrets: () => [...kit.credentials.all(), ...signIn.issuedRefreshTokens, signIn.app.clientSecret],
    close: () => kit.close(),
  };
}
