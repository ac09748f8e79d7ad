/**
 * Media upload: one file, its type read from its bytes (never its name), at most 100 MB, stored once
 * per brand (the same bytes uploaded twice return the same media). A rejected upload keeps nothing.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import type { z } from 'zod';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { message } from '../domain/messages.js';
import { type Media, UploadMediaRequest } from '../domain/schemas.js';
import { validateOrThrow } from '../domain/validation.js';
import { MEASURED_VIDEO_TYPES, videoSeconds } from '../media/video-duration.js';
import type { Clock, MediaDownloader, MediaStore, Store, TransferOptions, UserRecord } from '../ports.js';
import type { StagedUpload } from './publishing-service.js';
import { presentMedia } from './resources.js';

/** "100 MB" of the interface: 100 × 1024 × 1024 bytes. */
export const MEDIA_MAX_BYTES = 104_857_600;

/** The accepted MIME types, as detected from the bytes. */
export const MEDIA_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'video/mp4',
  'video/quicktime',
  'application/pdf',
]);

const pathError = (text: string) => ValidationError.single('path', text);

/** Checks the path names a readable regular file of an acceptable size; returns its absolute form. */
export async function checkLocalFile(path: string): Promise<string> {
  const expanded = path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
  if (!isAbsolute(expanded)) {
    throw pathError(`The path must be absolute (it is read on the machine running the server): ${path}`);
  }
  try {
    const info = await stat(expanded);
    if (info.isDirectory()) throw pathError(`The path ${expanded} is a directory, not a file.`);
    if (!info.isFile()) throw pathError(`The path ${expanded} is not a regular file.`);
    if (info.size === 0) throw ValidationError.single('media', message.mediaRequired);
    if (info.size > MEDIA_MAX_BYTES) throw ValidationError.single('media', message.mediaTooLarge);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw pathError(`The file ${expanded} does not exist.`);
    if (code === 'EACCES' || code === 'EPERM')
      throw pathError(`The file ${expanded} cannot be read (permission denied).`);
    if (code === 'ENAMETOOLONG') throw pathError('The path is too long for this system.');
    if (code === 'ELOOP') throw pathError(`The path ${expanded} loops through symbolic links.`);
    if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE' || code === 'EINVAL') {
      throw pathError('The path is not a valid file name (it may contain a NUL character).');
    }
    throw error;
  }
  return expanded;
}

/** The MIME type of a file from its first bytes (never its name), if it is one the sniffer knows. */
export async function detectType(head: Uint8Array): Promise<string | undefined> {
  // Loaded on first use: the sniffer is large and most sessions never upload.
  const { fileTypeFromBuffer } = await import('../media/file-type-sniffer.js');
  return (await fileTypeFromBuffer(head))?.mime;
}

export interface MediaUploadDeps {
  store: Store;
  media: MediaStore;
  clock: Clock;
  /** Fetches `url` sources; without one, a url is refused. */
  downloader?: MediaDownloader | undefined;
  /** Whether `path` names a file on this machine: true for stdio, false for HTTP sessions. */
  allowLocalPaths?: boolean | undefined;
}

const SOURCES = ['path', 'url', 'base64'] as const;

/** The bytes of the one source a request names, with their size when it is known up front. */
export async function openMediaSource(
  deps: Pick<MediaUploadDeps, 'downloader' | 'allowLocalPaths'>,
  input: z.output<typeof UploadMediaRequest>,
  signal?: AbortSignal,
): Promise<{ body: AsyncIterable<Uint8Array>; total: number | undefined; filename: string }> {
  const given = SOURCES.filter((source) => input[source] !== undefined);
  if (given.length === 0) throw ValidationError.single('media', message.mediaRequired);
  if (given.length > 1) {
    throw ValidationError.single(
      'media',
      `Give exactly one of path, url or base64, not ${given.join(' and ')}.`,
    );
  }
  if (input.path !== undefined) {
    if (!deps.allowLocalPaths) {
      throw pathError(
        'A path cannot be read here: this server does not run on your machine. Send the file as url or base64 (with filename) instead.',
      );
    }
    const file = await checkLocalFile(input.path);
    const { size } = await stat(file);
    return { body: createReadStream(file, { signal }), total: size, filename: basename(file) };
  }
  if (input.url !== undefined) {
    if (!deps.downloader)
      throw ValidationError.single('url', 'This server does not download media from URLs.');
    const download = await deps.downloader.open(input.url, signal);
    const name = basename(new URL(input.url).pathname) || 'download';
    return { body: download.body, total: download.announcedBytes, filename: name };
  }
  if (input.filename === undefined) {
    throw ValidationError.single('filename', 'The filename field is required when base64 is present.');
  }
  // Decoded whole: base64 is meant for small files. Its size is known before anything is written.
  const bytes = Buffer.from(input.base64!.replace(/\s+/g, ''), 'base64');
  if (bytes.length === 0) throw ValidationError.single('media', message.mediaRequired);
  if (bytes.length > MEDIA_MAX_BYTES) throw ValidationError.single('media', message.mediaTooLarge);
  return {
    body: (async function* () {
      yield bytes;
    })(),
    total: bytes.length,
    filename: input.filename,
  };
}

export async function uploadMedia(
  deps: MediaUploadDeps,
  user: UserRecord,
  request: unknown,
  transfer: TransferOptions = {},
): Promise<Media> {
  const input = validateOrThrow(UploadMediaRequest, request);
  const brand = await deps.store.findBrandOfUser(user.id, input.brandId);
  if (!brand) throw NotFoundError.brand();
  const source = await openMediaSource(deps, input, transfer.signal);
  const staged = await stageMedia(deps, brand.id, source.body, { ...transfer, total: source.total });
  return staged.commit();
}

/**
 * Stages one uploaded file for a brand the caller may use: streamed to disk, checked by size and by its
 * bytes. A rejected file is discarded before the error is thrown.
 */
export async function stageMedia(
  deps: MediaUploadDeps,
  brandId: number,
  source: AsyncIterable<Uint8Array>,
  transfer: TransferOptions & { total?: number | undefined } = {},
): Promise<StagedUpload> {
  const staged = await deps.media.stage(source, MEDIA_MAX_BYTES, transfer);
  let type: string | undefined;
  try {
    if (staged.tooLarge) throw ValidationError.single('media', message.mediaTooLarge);
    if (staged.size === 0) throw ValidationError.single('media', message.mediaRequired);
    type = await detectType(staged.head);
    if (!type || !MEDIA_TYPES.has(type)) throw ValidationError.single('media', message.mediaType);
  } catch (error) {
    await deps.media.discard(staged.token);
    throw error;
  }
  const mediaType = type;
  const durationMs = await measuredDuration(deps, staged, mediaType);
  return {
    discard: () => deps.media.discard(staged.token),
    commit: () => commitMedia(deps, brandId, { ...staged, durationMs }, mediaType),
  };
}

/** A video's duration in ms (MP4, QuickTime: src/media/video-duration.ts); null for the rest. */
async function measuredDuration(
  deps: MediaUploadDeps,
  staged: { token: string; size: number },
  type: string,
): Promise<number | null> {
  if (!MEASURED_VIDEO_TYPES.has(type)) return null;
  const seconds = await videoSeconds({
    size: staged.size,
    range: (start, end) => deps.media.stagedRange(staged.token, start, end),
  });
  return seconds === null ? null : Math.round(seconds * 1000);
}

async function commitMedia(
  deps: MediaUploadDeps,
  brandId: number,
  staged: { token: string; size: number; sha256: string; durationMs: number | null },
  type: string,
): Promise<Media> {
  try {
    const existing = await deps.store.findMediaByHash(brandId, staged.sha256);
    if (existing) {
      await deps.media.discard(staged.token);
      return presentMedia(existing);
    }
    const id = `med_${randomBytes(18).toString('base64url')}`;
    const storedPath = await deps.media.commit(staged.token, brandId, id, type);
    const record = {
      id,
      brandId,
      type,
      size: staged.size,
      sha256: staged.sha256,
      path: storedPath,
      createdAtMs: deps.clock.now(),
      durationMs: staged.durationMs,
    };
    try {
      await deps.store.insertMedia(record);
    } catch (error) {
      await deps.media.remove(storedPath);
      // A concurrent upload of the same bytes won the race: answer with its media.
      const winner = await deps.store.findMediaByHash(brandId, staged.sha256);
      if (winner) return presentMedia(winner);
      throw error;
    }
    return presentMedia(record);
  } catch (error) {
    await deps.media.discard(staged.token);
    throw error;
  }
}

/** Stages and keeps one file. */
export async function storeMedia(
  deps: MediaUploadDeps,
  brandId: number,
  source: AsyncIterable<Uint8Array>,
): Promise<Media> {
  return (await stageMedia(deps, brandId, source)).commit();
}
