/**
 * The workspace the multi-process and multi-instance tests import: one brand, Acme, with four channels
 * in one collection and a queue time every 15 minutes (so that QUEUE posts fill many slots), and one
 * user, Ada, with the given key.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ACME_TIMEZONE = 'America/New_York';
export const ACME_CHANNELS = ['Mastodon', 'Bluesky', 'Telegram', 'LinkedIn'] as const;

/** Writes the workspace file into `dir`; its path. */
export function acmeWorkspaceFile(dir: string, apiKey: string): string {
  const queueTimes = Array.from({ length: 96 }, (_, i) => {
    const minutes = i * 15;
    return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  });
  const file = join(dir, 'workspace.json');
  writeFileSync(
    file,
    JSON.stringify({
      brands: [
        {
          title: 'Acme',
          timezone: ACME_TIMEZONE,
          queueTimes,
          channels: ACME_CHANNELS.map((type) => ({ name: `Acme on ${type}`, type, status: 'ACTIVE' })),
          collections: [{ title: 'All', channels: ACME_CHANNELS.map((type) => `Acme on ${type}`) }],
        },
      ],
      users: [{ name: 'Ada', timezone: 'Europe/London', apiKey, brands: ['Acme'] }],
    }),
  );
  return file;
}
