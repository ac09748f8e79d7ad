/**
 * The TikTok module: a creator signed in with Login Kit through the operator's app (its client key and
 * secret), posting through the Content Posting API: a video by chunked FILE_UPLOAD, photos pulled by
 * TikTok from their public addresses (on a domain verified for the app), Direct Post at the privacy
 * level chosen at the sign-in, or to the creator's inbox with `platforms.tiktok.sendToInbox`. TikTok
 * has no idempotency key and no comment API.
 */
import type { ConnectorModule, PreflightFacts, PreflightNote } from '../module.js';

/**
 * What pre-flight says of a TikTok post beside the shared rules (which tell the auto-comment, from the
 * capabilities): the photos' addresses, an unaudited app.
 */
function tiktokNotes({ payload, settings, media, publicMedia }: PreflightFacts): PreflightNote[] {
  const notes: PreflightNote[] = [];
  const photos = media.filter((m) => !m.type?.startsWith('video/'));
  const video = media.some((m) => m.type?.startsWith('video/'));
  if (!video && photos.some((m) => m.uploaded) && !publicMedia) {
    notes.push({
      outcome: 'fail',
      message:
        'TikTok pulls photos from a public address, and this server gives uploaded files none: run serve with SOCIAL_PUBLISHER_PUBLIC_URL set to its public address (its domain verified for the TikTok app), or give the photos as URLs.',
    });
  } else if (!video && photos.length > 0) {
    notes.push({
      outcome: 'change',
      message:
        'TikTok downloads the photos from their addresses, whose domain must be verified for the TikTok app (else TikTok refuses them: url_ownership_unverified).',
    });
  }
  const title = payload.title?.trim() ?? '';
  if (!video && photos.length > 0 && title.length > 90) {
    notes.push({
      outcome: 'fail',
      message: `The title of a TikTok photo post is at most 90 UTF-16 units (an emoji counts 2), not ${title.length}.`,
    });
  }
  const inbox = (payload.platforms?.tiktok as { sendToInbox?: unknown } | undefined)?.sendToInbox === true;
  const level = typeof settings.privacyLevel === 'string' ? settings.privacyLevel : 'SELF_ONLY';
  notes.push({
    outcome: 'change',
    message: inbox
      ? "It goes to the creator's TikTok inbox: the creator finishes and posts it in the TikTok app (within a day). An app TikTok has not audited may send a few a day."
      : level === 'SELF_ONLY'
        ? 'TikTok posts it visible to the creator only (the channel’s privacy level SELF_ONLY); an app TikTok has not audited may post a few times a day.'
        : `TikTok posts it at the privacy level ${level}: an app TikTok has not audited may post only SELF_ONLY, to a private account, a few times a day (TikTok refuses it otherwise).`,
  });
  return notes;
}

export const tiktok: ConnectorModule<'tiktok'> = {
  kind: 'tiktok',
  channelType: 'TikTok',
  displayName: 'TikTok',
  idempotent: false,
  connect: {
    flags: [
      {
        name: 'api-root',
        role: 'endpoint',
        value: 'URL',
        fallback: 'https://open.tiktokapis.com',
        help: "TikTok's API address (a stand-in or a proxy)",
      },
    ],
    verify: async (input) => (await import('./tiktok-account.js')).verifyTikTok(input),
  },
  describe: { account: '@username', address: 'TikTok API root' },
  load: async () => (await import('./tiktok-connector.js')).openTikTok,
  preflight: tiktokNotes,
  app: {
    name: 'TIKTOK',
    registerAt: 'https://developers.tiktok.com/apps',
    authRoot: 'https://www.tiktok.com',
    apiRoot: 'https://open.tiktokapis.com',
  },
  oauth: async () => (await import('./tiktok-oauth.js')).tiktokOAuth,
};
