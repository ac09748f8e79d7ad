/**
 * The operator's apps (oauth-apps.ts): from the environment, else DATA_DIR/apps.json, each field on its
 * own; a missing app named with both settings, the file and where to register it; a bad file refused
 * at start with its path; a client secret in no message.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config-values.js';
import { loadOAuthApps } from '../../src/oauth-apps.js';
import type { OAuthAppSpec } from '../../src/publish/connectors/module.js';

const LINKEDIN: OAuthAppSpec = {
  name: 'LINKEDIN',
  registerAt: 'https://www.linkedin.com/developers/apps',
  authRoot: 'https://www.linkedin.com',
  apiRoot: 'https://api.linkedin.com',
};

function dataDir(apps?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'spm-apps-'));
  if (apps !== undefined)
    writeFileSync(join(dir, 'apps.json'), typeof apps === 'string' ? apps : JSON.stringify(apps));
  return dir;
}

describe('operator apps', () => {
  it('reads the environment first, then apps.json, field by field', () => {
    const dir = dataDir({
      X: { clientId: 'file-id', clientSecret: 'file-secret-123' },
      LINKEDIN: {
        clientId: 'li-file',
        clientSecret: 'li-secret',
        authRoot: 'http://127.0.0.1:9/',
        apiRoot: 'http://127.0.0.1:8',
      },
    });
    const apps = loadOAuthApps({ SOCIAL_PUBLISHER_X_CLIENT_ID: 'env-id' }, dir);
    expect(apps.get('X')).toEqual({ clientId: 'env-id', clientSecret: 'file-secret-123' });
    expect(apps.get('LINKEDIN')).toEqual({
      clientId: 'li-file',
      clientSecret: 'li-secret',
      authRoot: 'http://127.0.0.1:9',
      apiRoot: 'http://127.0.0.1:8',
    });
    expect(apps.get('TIKTOK')).toBeUndefined();
    // Half an app is no app: both halves are needed.
    expect(
      loadOAuthApps({ SOCIAL_PUBLISHER_PINTEREST_CLIENT_ID: 'only-id' }, dataDir()).get('PINTEREST'),
    ).toBeUndefined();
  });

  it('names both settings, the file and where to register when an app is missing, and no secret', () => {
    const dir = dataDir({ X: { clientId: 'x-id', clientSecret: 'x-very-secret' } });
    const apps = loadOAuthApps({}, dir);
    let message = '';
    try {
      apps.require('LinkedIn', LINKEDIN, 'http://127.0.0.1:8788/callback');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain(
      'SOCIAL_PUBLISHER_LINKEDIN_CLIENT_ID and SOCIAL_PUBLISHER_LINKEDIN_CLIENT_SECRET',
    );
    expect(message).toContain(join(dir, 'apps.json'));
    expect(message).toContain(
      'https://www.linkedin.com/developers/apps with the redirect URI http://127.0.0.1:8788/callback',
    );
    expect(message).not.toContain('x-very-secret');
  });

  it('refuses a bad apps.json at start, with its path and what is wrong', () => {
    const refused = (apps: unknown) => {
      try {
        loadOAuthApps({}, dataDir(apps));
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refused('{"X": ')).toMatch(/Cannot read .*apps\.json/);
    expect(refused('[1]')).toContain('must hold an object');
    expect(refused({ TWITTER: {} })).toContain('unknown app "TWITTER": use X, LINKEDIN');
    expect(refused({ X: { clientId: 'a', clientSecret: 'b', authRoot: 'ftp://x' } })).toContain(
      'X.authRoot must be an http(s) origin',
    );
  });
});
