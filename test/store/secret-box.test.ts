/** Channel secrets at rest: AES-256-GCM under a key that is not in the database. */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyFromText, SecretBox, SecretUnreadable } from '../../src/store/secret-box.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'secret-box-'));
const TOKEN = 'mastodon-token-7c1d9e2f4a';

describe('SecretBox', () => {
  it('seals a secret so that its bytes do not hold it, and opens it again', () => {
    const box = new SecretBox({ dataDir: dataDir() });
    const sealed = box.seal(TOKEN, 5);
    expect(Buffer.from(sealed).includes(TOKEN)).toBe(false);
    expect(Buffer.from(sealed).includes(Buffer.from(TOKEN).toString('base64'))).toBe(false);
    expect(box.open(sealed, 5)).toBe(TOKEN);
    // A fresh IV each time: the same secret never seals to the same bytes.
    expect(Buffer.from(box.seal(TOKEN, 5)).equals(Buffer.from(sealed))).toBe(false);
  });

  it('creates the key file once, with mode 0600, and a second box on the same directory opens what the first sealed', () => {
    const dir = dataDir();
    const sealed = new SecretBox({ dataDir: dir }).seal(TOKEN, 1);
    const file = join(dir, 'secret.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8');
    expect(new SecretBox({ dataDir: dir }).open(sealed, 1)).toBe(TOKEN);
    expect(readFileSync(file, 'utf8')).toBe(key);
  });

  it('binds a sealed secret to its channel: moved to another channel it does not open', () => {
    const box = new SecretBox({ dataDir: dataDir() });
    const sealed = box.seal(TOKEN, 1);
    expect(() => box.open(sealed, 2)).toThrow(SecretUnreadable);
  });

  it('says that the key changed when the secret was sealed with another one', () => {
    const dir = dataDir();
    const sealed = new SecretBox({ dataDir: dir, secretKey: 'a'.repeat(64) }).seal(TOKEN, 1);
    expect(() => new SecretBox({ dataDir: dir, secretKey: 'b'.repeat(64) }).open(sealed, 1)).toThrow(
      /sealed with another key: SOCIAL_PUBLISHER_SECRET_KEY changed/,
    );
  });

  it('refuses a tampered secret with a reason, never a wrong plaintext', () => {
    const box = new SecretBox({ dataDir: dataDir(), secretKey: 'c'.repeat(64) });
    const sealed = box.seal(TOKEN, 1);
    sealed[sealed.length - 1]! ^= 1;
    expect(() => box.open(sealed, 1)).toThrow(/integrity check/);
  });

  it('with SOCIAL_PUBLISHER_SECRET_KEY creates no key file', () => {
    const dir = dataDir();
    new SecretBox({ dataDir: dir, secretKey: 'my passphrase of some length' }).seal(TOKEN, 1);
    expect(() => statSync(join(dir, 'secret.key'))).toThrow();
  });

  it('warns when the key file can be read by others', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'secret.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o644 });
    const warnings: string[] = [];
    new SecretBox({ dataDir: dir }, (message) => warnings.push(message)).seal(TOKEN, 1);
    expect(warnings).toEqual([
      `${join(dir, 'secret.key')} can be read by other users of this machine: run chmod 600 on it.`,
    ]);
  });
});

describe('keyFromText', () => {
  it('takes 64 hex digits or base64 of 32 bytes as the key, and stretches a passphrase', () => {
    expect(keyFromText('ab'.repeat(32))).toEqual(Buffer.alloc(32, 0xab));
    expect(keyFromText(Buffer.alloc(32, 9).toString('base64'))).toEqual(Buffer.alloc(32, 9));
    const stretched = keyFromText('correct horse battery staple');
    expect(stretched).toHaveLength(32);
    expect(keyFromText('correct horse battery staple')).toEqual(stretched);
  });

  it('refuses a short key with what to use instead', () => {
    expect(() => keyFromText('short')).toThrow(/openssl rand -hex 32/);
  });
});
