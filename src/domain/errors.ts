/**
 * The typed errors of the service. Adapters convert them once each: MCP into `isError` tool results,
 * REST into status codes, and the remote client turns HTTP error bodies back into these classes.
 */

/** Field errors keyed by raw dotted path (`poll.options.1`), each an array of sentences. */
export type FieldErrors = Record<string, string[]>;

/** The error body of http-interface.md. */
export interface ErrorBody {
  status: 'error';
  message: string;
  errors: Record<string, string[] | string>;
}

export const VALIDATION_MESSAGE = 'The given data was invalid.';

/** 422: one or more request fields failed validation; all failures of the request are listed. */
export class ValidationError extends Error {
  readonly status = 422;
  constructor(
    readonly errors: FieldErrors,
    options?: ErrorOptions,
  ) {
    super(VALIDATION_MESSAGE, options);
    this.name = 'ValidationError';
  }

  static single(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** 404: a resource does not exist or the acting user may not see it. `key` names the cause. */
export class NotFoundError extends Error {
  readonly status = 404;
  constructor(
    readonly key: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'NotFoundError';
  }

  static brand(): NotFoundError {
    return new NotFoundError('brand', 'Brand not found.');
  }

  static collection(): NotFoundError {
    return new NotFoundError('collection', 'Collection not found.');
  }

  static channel(): NotFoundError {
    return new NotFoundError('channel', 'Channel not found.');
  }

  static post(): NotFoundError {
    return new NotFoundError('post', 'Post not found.');
  }

  static playlistChannel(index: number): NotFoundError {
    return new NotFoundError(
      `platforms.youtube.playlists.${index}.channelId`,
      'Channel not found or does not belong to the brand',
    );
  }
}

/** 401: no API key, or one that matches no user. */
export class UnauthenticatedError extends Error {
  readonly status = 401;
  constructor(options?: ErrorOptions) {
    super('Unauthenticated.', options);
    this.name = 'UnauthenticatedError';
  }
}

export type ServiceError = ValidationError | NotFoundError | UnauthenticatedError;

export function isServiceError(error: unknown): error is ServiceError {
  return (
    error instanceof ValidationError ||
    error instanceof NotFoundError ||
    error instanceof UnauthenticatedError
  );
}

/** The spec's error body for a service error. */
export function toErrorBody(error: ServiceError): ErrorBody {
  if (error instanceof ValidationError) {
    return { status: 'error', message: error.message, errors: error.errors };
  }
  if (error instanceof NotFoundError) {
    return { status: 'error', message: error.message, errors: { [error.key]: error.message } };
  }
  return {
    status: 'error',
    message: error.message,
    errors: { authorization: 'A valid API key is required.' },
  };
}

// ------------------------------------------------------------------------------- storage faults

/**
 * 507: the disk holding the data directory is full, so a write was refused and nothing of the request
 * was saved (its transaction rolled back, a staged file removed). Not the caller's fault and not
 * transient: it lasts until someone frees space. `cause` is the real fault (SQLITE_FULL, ENOSPC), for
 * the operator's log.
 */
export class StorageFullError extends Error {
  readonly status = 507;
  /** For the operator's log, beside the cause. */
  readonly reason = 'the disk holding the data directory is full';
  constructor(options?: ErrorOptions) {
    super('Insufficient Storage.', options);
    this.name = 'StorageFullError';
  }
}

/**
 * 503: the data directory or the database file stopped being writable while the server ran (remounted
 * read-only, permissions changed), so nothing of the request was saved; reads still work. Lasts until
 * someone makes it writable again. `cause` is the real fault (SQLITE_READONLY, EROFS, EACCES).
 */
export class StorageReadOnlyError extends Error {
  readonly status = 503;
  /** For the operator's log, beside the cause. */
  readonly reason = 'the data directory is not writable';
  constructor(options?: ErrorOptions) {
    super('Service Unavailable.', options);
    this.name = 'StorageReadOnlyError';
  }
}

/**
 * 503: the database server cannot be used just now: it refuses connections or drops them (stopped,
 * restarting, out of connections), or it gave no answer within the database deadline (frozen, cut off,
 * overloaded). Transient, unlike the faults above: the same call succeeds once it answers again, and
 * trying it again is safe (a post created again is answered with the first one, see create-post.ts).
 * `database` names it (`host:port/name`, never a user or password); `problem` says what happened, in a
 * few words; `inDoubt`: a change was sent and no answer came (a COMMIT, a write of its own), so it may
 * have been saved; otherwise the statement that failed saved nothing. `cause` is the driver's error.
 */
export class DatabaseUnavailableError extends Error {
  readonly status = 503;
  /** Seconds a client should wait before trying again (Retry-After). */
  readonly retryAfterSeconds = 5;
  constructor(
    readonly database: string,
    readonly problem: string,
    readonly inDoubt: boolean,
    options?: ErrorOptions,
  ) {
    super(`Service Unavailable: the database at ${database} is unavailable (${problem}).`, options);
    this.name = 'DatabaseUnavailableError';
  }

  /** For the operator's log, beside the cause. */
  get reason(): string {
    const doubt = this.inDoubt ? ', before it confirmed a change, which may have been saved' : '';
    return `the database at ${this.database} is unavailable (${this.problem})${doubt}`;
  }
}

/**
 * 503: the object storage that keeps uploaded media (SOCIAL_PUBLISHER_MEDIA_S3_BUCKET) refused the file
 * or could not be reached, so the upload was not kept. Lasts until the storage answers again or the
 * operator fixes its settings. `reason`, for the operator's log, is what the storage answered.
 */
export class MediaStorageError extends Error {
  readonly status = 503;
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super('Service Unavailable.', options);
    this.name = 'MediaStorageError';
  }
}

export type StorageFault =
  | StorageFullError
  | StorageReadOnlyError
  | DatabaseUnavailableError
  | MediaStorageError;

export function isStorageFault(error: unknown): error is StorageFault {
  return (
    error instanceof StorageFullError ||
    error instanceof StorageReadOnlyError ||
    error instanceof DatabaseUnavailableError ||
    error instanceof MediaStorageError
  );
}

/**
 * The spec's error body for a storage fault: `errors.storage` says what happened and what must change;
 * for an unavailable database, `errors.database`, and `errors.saved` when a change may have been saved.
 */
export function storageFaultBody(error: StorageFault): ErrorBody {
  if (error instanceof DatabaseUnavailableError) return databaseUnavailableBody(error);
  if (error instanceof MediaStorageError) {
    return { status: 'error', message: error.message, errors: { storage: MEDIA_STORAGE_TEXT } };
  }
  const storage =
    error instanceof StorageFullError
      ? "The server's disk is full, so nothing was saved. Free space on the server, then try again."
      : "The server's data directory is no longer writable, so nothing was saved. Make it writable on the server again, then try again.";
  return { status: 'error', message: error.message, errors: { storage } };
}

function databaseUnavailableBody(error: DatabaseUnavailableError): ErrorBody {
  const retry = `Try again in a few seconds (after ${error.retryAfterSeconds} s): trying again is safe.`;
  const errors: Record<string, string> = {
    database: `The server's database, at ${error.database}, is unavailable (${error.problem}). ${retry}`,
  };
  if (error.inDoubt) errors.saved = DATABASE_IN_DOUBT;
  return { status: 'error', message: error.message, errors };
}

/** `errors.storage` of a MediaStorageError; the remote client knows the fault by it. */
export const MEDIA_STORAGE_TEXT =
  "The server's media storage (its object storage bucket) did not keep the file, so nothing was saved. Try again later; if it keeps failing, the server's operator must check its object storage and its settings (the server's log says what the storage answered).";

/** Why trying again is safe even when a change may have been saved (`errors.saved`). */
export const DATABASE_IN_DOUBT =
  'The database stopped answering before it confirmed the change, which may have been saved: read it back first. A post created again within ten minutes, or with the same idempotencyKey, is answered with the post saved first instead of a second one.';

/**
 * The local store cannot be used, found while opening it at start: a read-only or unwritable data
 * directory, a database file that is not a readable SQLite database. The message names the path and
 * the fix; the program prints it and exits 1 instead of starting and failing every write.
 */
export class StorageStartError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StorageStartError';
  }
}

/** Merges field errors: every message of every field, each once. */
export function mergeFieldErrors(...sets: FieldErrors[]): FieldErrors {
  const merged = new Map<string, string[]>();
  for (const set of sets) {
    for (const [field, messages] of Object.entries(set)) {
      merged.set(field, [...new Set([...(merged.get(field) ?? []), ...messages])]);
    }
  }
  return Object.fromEntries(merged);
}
