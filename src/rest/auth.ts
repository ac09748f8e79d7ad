/** `Authorization: Bearer <API key>` on every endpoint; the key is never logged. */
import { UnauthenticatedError } from '../domain/errors.js';

/** The key of a `Bearer` Authorization header, or undefined when there is none in that form. */
export function presentedKey(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

export function bearerKey(header: string | undefined): string {
  const key = presentedKey(header);
  if (key === undefined) throw new UnauthenticatedError();
  return key;
}
