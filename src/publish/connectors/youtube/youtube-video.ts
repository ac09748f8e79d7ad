/**
 * What a post becomes on YouTube: the video resource of the upload (title, description, tags, privacy:
 * youtube-rules.ts decides the words), the playlists of this channel (`platforms.youtube.playlists`
 * entries whose `channelId` is this channel), and how a video's processing reads
 * (`GET /youtube/v3/videos?part=status,processingDetails`: `status.uploadStatus` uploaded → processed,
 * or failed / rejected / deleted with `failureReason` / `rejectionReason`).
 */

import {
  youtubeDescription,
  youtubeProblems,
  youtubeTags,
  youtubeTitle,
} from '../../../domain/youtube-rules.js';
import type { DeliveryJob } from '../../../ports.js';
import { NotForPlatform } from '../platform-api.js';

export type Privacy = 'public' | 'unlisted' | 'private';

/** The video's privacy: the post's `platforms.youtube.privacy`, else public. */
export function privacyOf(job: Pick<DeliveryJob, 'content'>): Privacy {
  const privacy = job.content.overrides?.privacy;
  return privacy === 'unlisted' || privacy === 'private' ? privacy : 'public';
}

/** The video resource of `videos.insert` (`part=snippet,status`); refuses what YouTube would refuse. */
export function videoResource(job: Pick<DeliveryJob, 'content'>): Record<string, unknown> {
  const problems = youtubeProblems(job.content);
  if (problems.length > 0) throw new NotForPlatform(problems.join(' '));
  const tags = youtubeTags(job.content);
  return {
    snippet: {
      title: youtubeTitle(job.content),
      description: youtubeDescription(job.content),
      ...(tags.length > 0 ? { tags } : {}),
    },
    status: { privacyStatus: privacyOf(job), selfDeclaredMadeForKids: false },
  };
}

/** The playlist ids this channel's video goes to, in the post's order, each once. */
export function playlistsOf(job: Pick<DeliveryJob, 'content' | 'channel'>): string[] {
  const entries = job.content.overrides?.playlists;
  if (!Array.isArray(entries)) return [];
  const ids: string[] = [];
  for (const entry of entries as { channelId?: unknown; playlistIds?: unknown }[]) {
    if (entry?.channelId !== job.channel.id || !Array.isArray(entry.playlistIds)) continue;
    for (const id of entry.playlistIds) {
      if (typeof id === 'string' && id.trim() && !ids.includes(id.trim())) ids.push(id.trim());
    }
  }
  return ids;
}

export type Processing =
  | { state: 'processing'; timeLeftMs: number | null }
  | { state: 'processed' }
  | { state: 'failed'; said: string };

/** A video of `videos.list` (its first item), as its processing stands; gone when none. */
export function processingOf(json: unknown): Processing {
  const item = ((json ?? {}) as { items?: Record<string, unknown>[] }).items?.[0];
  if (!item) return { state: 'failed', said: 'the video is gone (deleted, or never finished)' };
  const status = (item.status ?? {}) as Record<string, unknown>;
  const details = (item.processingDetails ?? {}) as Record<string, unknown>;
  const upload = status.uploadStatus;
  if (upload === 'processed') return { state: 'processed' };
  if (upload === 'failed' || upload === 'rejected' || upload === 'deleted') {
    const why = upload === 'failed' ? status.failureReason : status.rejectionReason;
    return { state: 'failed', said: `${upload}${typeof why === 'string' ? `: ${why}` : ''}` };
  }
  if (details.processingStatus === 'failed') {
    const why = details.processingFailureReason;
    return { state: 'failed', said: `processing failed${typeof why === 'string' ? `: ${why}` : ''}` };
  }
  const left = Number((details.processingProgress as { timeLeftMs?: unknown } | undefined)?.timeLeftMs);
  return { state: 'processing', timeLeftMs: Number.isFinite(left) && left >= 0 ? left : null };
}

export const watchUrl = (videoId: string) => `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`;
