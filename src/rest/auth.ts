/** `Authorization: Bearer <API key>` on every endpoint; the key is never logged. */
import { UnauthenticatedError } from '../domain/errors.js';

export function bearerKey(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) throw new UnauthenticatedError();
  return match[1]!;
}
