/**
 * A REST error answer turned back into the service's typed errors, so remote mode fails exactly as
 * local mode does: the spec's 422 body → ValidationError, its 404 body → NotFoundError, any 401 →
 * UnauthenticatedError (its cause names the server and the settings to check), a 507 → StorageFullError and a 503 whose body names `storage` →
 * StorageReadOnlyError (the server's storage faults), a 503 whose body names `database` →
 * DatabaseUnavailableError (the server's database unavailable; `saved` says a change is in doubt).
 * Anything else (another status, or a body not in the spec's form, such as a proxy's HTML page) is a
 * plain Error naming the request and the status.
 */
import {
  DatabaseUnavailableError,
  type FieldErrors,
  MEDIA_STORAGE_TEXT,
  MediaStorageError,
  NotFoundError,
  StorageFullError,
  StorageReadOnlyError,
  UnauthenticatedError,
  ValidationError,
} from '../domain/errors.js';
import { isPlainObject } from '../domain/validation.js';

/** The parsed JSON of a body, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `errors` of a 422 body: each field an array of sentences (a single string is read as one). */
function fieldErrorsOf(errors: unknown): FieldErrors | undefined {
  if (!isPlainObject(errors)) return undefined;
  const entries: Array<[string, string[]]> = [];
  for (const [field, value] of Object.entries(errors)) {
    if (typeof value === 'string') entries.push([field, [value]]);
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
      entries.push([field, value]);
    else return undefined;
  }
  // Object.fromEntries defines own properties, so a field named `__proto__` stays a field.
  return Object.fromEntries(entries);
}

/** The one cause of a 404 body: `{ errors: { key: message } }`. */
function notFoundOf(body: Record<string, unknown>): NotFoundError | undefined {
  if (!isPlainObject(body.errors)) return undefined;
  const entries = Object.entries(body.errors);
  if (entries.length !== 1) return undefined;
  const [key, value] = entries[0]!;
  const text = typeof body.message === 'string' ? body.message : value;
  return typeof text === 'string' ? new NotFoundError(key, text) : undefined;
}

/**
 * Why a server refused the key, for the person who configured remote mode: which server, and which
 * settings to check. The cause of the UnauthenticatedError, whose own message stays the spec's.
 */
export function keyRefusedText(apiRoot: string): string {
  return `The server at ${apiRoot} refused the API key (401 Unauthenticated). Check SOCIAL_PUBLISHER_API_KEY (the key of your user on that server) and SOCIAL_PUBLISHER_API_URL.`;
}

/**
 * The error for a non-2xx answer. `request` names it (`GET http://host/v1/me`), `apiRoot` is the base
 * URL (`http://host/v1`), `attempts` says how often it was sent; `redact` removes the API key from any
 * text taken from the answer.
 */
export function errorFromResponse(
  status: number,
  bodyText: string,
  context: { request: string; apiRoot: string; attempts: number; redact: (text: string) => string },
): Error {
  if (status === 401) return new UnauthenticatedError({ cause: new Error(keyRefusedText(context.apiRoot)) });
  const body = parseJson(bodyText);
  const object = isPlainObject(body) ? body : undefined;
  if (status === 422 && object) {
    const errors = fieldErrorsOf(object.errors);
    if (errors) return new ValidationError(errors);
  }
  if (status === 404 && object) {
    const notFound = notFoundOf(object);
    if (notFound) return notFound;
  }
  // The cause says whose storage it is: the server's, not this process's.
  const answered = { cause: new Error(`${context.request} answered ${status}`) };
  if (status === 507) return new StorageFullError(answered);
  // A 503 of a proxy or a restarting server is not a storage fault: only the body says it is.
  if (status === 503 && isPlainObject(object?.errors) && 'storage' in object.errors) {
    return object.errors.storage === MEDIA_STORAGE_TEXT
      ? new MediaStorageError("the server's media storage did not keep the file", answered)
      : new StorageReadOnlyError(answered);
  }
  const database = databaseUnavailable(status, object);
  if (database)
    return new DatabaseUnavailableError(database.name, database.problem, database.inDoubt, answered);

  const serverMessage =
    typeof object?.message === 'string' && object.message.trim() !== ''
      ? `: ${context.redact(
          object.message
            .trim()
            .slice(0, 500)
            .replace(/[.\s]+$/, ''),
        )}`
      : '';
  const hint =
    status === 404 && !object ? ' (is the base URL right? It must be the API root including /v1)' : '';
  return new Error(
    `${context.request} failed after ${attemptsText(context.attempts)}: the server answered ${status}${serverMessage}${hint}.`,
  );
}

/**
 * A 503 that says the server's database is unavailable (domain/errors.ts `storageFaultBody`): its name
 * and problem as the server's message gives them, and whether a change is in doubt (`errors.saved`).
 */
function databaseUnavailable(
  status: number,
  body: Record<string, unknown> | undefined,
): { name: string; problem: string; inDoubt: boolean } | undefined {
  if (status !== 503 || !isPlainObject(body?.errors) || !('database' in body.errors)) return undefined;
  const said = typeof body.message === 'string' ? body.message : '';
  const [, name, problem] = /the database at (.+) is unavailable \((.+)\)\.$/.exec(said) ?? [];
  return {
    name: name ?? "the server's",
    problem: problem ?? 'the server answered 503',
    inDoubt: 'saved' in body.errors,
  };
}

/**
 * Whether a request that changes something may be sent again after this answer: a 503 of the server's
 * database that says no change is in doubt (the statement that failed saved nothing, and trying again
 * is safe: domain/errors.ts DatabaseUnavailableError).
 */
export function safeToSendAgain(status: number, bodyText: string): boolean {
  const body = parseJson(bodyText);
  const database = databaseUnavailable(status, isPlainObject(body) ? body : undefined);
  return database !== undefined && !database.inDoubt;
}

export function attemptsText(attempts: number): string {
  return attempts === 1 ? '1 attempt' : `${attempts} attempts`;
}
