/**
 * Channel secrets at rest: sealed with AES-256-GCM under a key that is not in the database. The key is
 * `SOCIAL_PUBLISHER_SECRET_KEY` when set (64 hex digits or base64 of 32 bytes are used as they are; any
 * other text of 16 characters or more is stretched with scrypt), otherwise a random key kept in
 * `secret.key` in the data directory, created with mode 0600. A copy of the database alone reveals no
 * secret; the database and the key file together do, so back them up apart.
 *
 * A sealed secret is bound to its channel (the channel id is authenticated data): moved to another row it
 * does not open. The key's fingerprint is kept beside it, so that a changed key is reported as such.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, scryptSync } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const SECRET_KEY_FILE = 'secret.key';
const VERSION = 1;
const FINGERPRINT_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + FINGERPRINT_BYTES + IV_BYTES + TAG_BYTES;

/** A sealed secret cannot be opened: the key changed, or the row was tampered with. */
export class SecretUnreadable extends Error {
  override readonly name = 'SecretUnreadable';
}

export interface SecretKeySource {
  /** `SOCIAL_PUBLISHER_SECRET_KEY`, when set. */
  secretKey?: string | undefined;
  /** Where the key file is kept (created on first use) when no key is set. */
  dataDir: string;
}

export class SecretBox {
  private key: Buffer | undefined;

  /** The key is read (or the key file created) on first use: a process that never seals pays nothing. */
  constructor(
    private readonly source: SecretKeySource,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  seal(secret: string, channelId: number): Uint8Array {
    const key = this.currentKey();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(boundTo(channelId));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return new Uint8Array(
      Buffer.concat([Buffer.of(VERSION), fingerprint(key), iv, cipher.getAuthTag(), body]),
    );
  }

  open(sealed: Uint8Array, channelId: number): string {
    const bytes = Buffer.from(sealed);
    if (bytes.length < HEADER_BYTES || bytes[0] !== VERSION) {
      throw new SecretUnreadable('The stored channel secret is not in a format this version can read.');
    }
    const key = this.currentKey();
    if (!bytes.subarray(1, 1 + FINGERPRINT_BYTES).equals(fingerprint(key))) {
      throw new SecretUnreadable(
        `The channel's secret was sealed with another key: ${this.keyName()} changed since it was connected. Restore the old key, or connect the channel again.`,
      );
    }
    const ivStart = 1 + FINGERPRINT_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(ivStart, ivStart + IV_BYTES));
    decipher.setAAD(boundTo(channelId));
    decipher.setAuthTag(bytes.subarray(ivStart + IV_BYTES, HEADER_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SecretUnreadable(
        "The channel's stored secret failed its integrity check (changed outside the program): connect the channel again.",
      );
    }
  }

  /**
   * A key for `purpose` (signing media addresses…), derived from the secret key with HKDF-SHA256: it
   * changes when the secret key does, and reveals nothing of it.
   */
  derive(purpose: string): Buffer {
    return Buffer.from(
      hkdfSync('sha256', this.currentKey(), Buffer.alloc(0), `social-publisher-mcp ${purpose}`, 32),
    );
  }

  private keyName(): string {
    return this.source.secretKey ? 'SOCIAL_PUBLISHER_SECRET_KEY' : join(this.source.dataDir, SECRET_KEY_FILE);
  }

  private currentKey(): Buffer {
    this.key ??= this.source.secretKey ? keyFromText(this.source.secretKey) : this.keyFromFile();
    return this.key;
  }

  /** The key file, created with mode 0600 if missing; `wx` makes one of several starting processes win. */
  private keyFromFile(): Buffer {
    const file = join(this.source.dataDir, SECRET_KEY_FILE);
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${randomBytes(32).toString('base64')}\n`);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
      this.warn(`${file} can be read by other users of this machine: run chmod 600 on it.`);
    }
    const text = readFileSync(file, 'utf8').trim();
    const key = Buffer.from(text, 'base64');
    if (key.length !== 32) {
      throw new Error(`${file} does not hold a key (32 bytes in base64): restore it from a backup.`);
    }
    return key;
  }
}

/** 64 hex digits or base64 of 32 bytes are the key itself; any other text is a passphrase. */
export function keyFromText(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(trimmed)) return Buffer.from(trimmed, 'base64');
  if (trimmed.length < 16) {
    throw new Error(
      'SOCIAL_PUBLISHER_SECRET_KEY is too short: use 64 hex digits (openssl rand -hex 32) or a passphrase of at least 16 characters.',
    );
  }
  return scryptSync(trimmed, 'social-publisher-mcp channel secrets', 32, {
    N: 2 ** 15,
    r: 8,
    p: 1,
    maxmem: 64 * 1024 * 1024,
  });
}

function fingerprint(key: Buffer): Buffer {
  return createHash('sha256')
    .update('social-publisher-mcp key id')
    .update(key)
    .digest()
    .subarray(0, FINGERPRINT_BYTES);
}

function boundTo(channelId: number): Buffer {
  return Buffer.from(`channel:${channelId}`);
}
