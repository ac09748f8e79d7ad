/**
 * The public address of a post's media element, for the platforms that fetch media themselves
 * (Threads, Instagram, Google Business Profile, TikTok's photos): a URL element as it is, an uploaded
 * file through the engine's `publicMediaUrl` (serve's signed addresses, or object storage), and
 * otherwise a refusal that names what to configure.
 */
import type { PlatformMedia } from '../../domain/delivery.js';
import type { ConnectorContext } from '../connector.js';
import { NotForPlatform } from './platform-api.js';

/** Why an uploaded file cannot go to a platform that fetches media, and what fixes it. */
export function noPublicAddress(platform: string): string {
  return `${platform} fetches every media file from a public address, and this server has none for an uploaded file: run serve with SOCIAL_PUBLISHER_PUBLIC_URL set to its public https address (or give the file as a public URL).`;
}

export async function publicAddressOf(
  context: Pick<ConnectorContext, 'publicMediaUrl'>,
  brandId: number,
  element: PlatformMedia,
  platform: string,
): Promise<string> {
  const url = element.url ?? (await context.publicMediaUrl?.(brandId, element));
  if (!url) throw new NotForPlatform(noPublicAddress(platform));
  return url;
}
