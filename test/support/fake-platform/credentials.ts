/**
 * The secrets a fake platform accepts (tokens, passwords): issued, checked, revoked. Every secret it
 * ever issued is listed, so that a test can look for each of them where none may appear.
 */
import { randomBytes } from 'node:crypto';

export type CredentialProblem = 'missing' | 'unknown' | 'revoked';

export class Credentials {
  private readonly known = new Map<string, { revoked: boolean }>();

  /** Accepts `secret` (a random one when absent) from now on; returns it. */
  issue(secret: string = randomBytes(24).toString('base64url')): string {
    this.known.set(secret, { revoked: false });
    return secret;
  }

  /** What is wrong with `secret`, or undefined when it is accepted. */
  problemOf(secret: string | undefined): CredentialProblem | undefined {
    if (secret === undefined || secret === '') return 'missing';
    const known = this.known.get(secret);
    if (!known) return 'unknown';
    return known.revoked ? 'revoked' : undefined;
  }

  /** `secret` stops working; every secret when none is named. */
  revoke(secret?: string): void {
    for (const [value, state] of this.known)
      if (secret === undefined || value === secret) state.revoked = true;
  }

  /** Every secret ever issued, revoked or not. */
  all(): string[] {
    return [...this.known.keys()];
  }
}
