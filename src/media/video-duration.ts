/**
 * A video's duration, read from its `moov/mvhd` box (ISO/IEC 14496-12) by a few small reads wherever the
 * box is in the file: measured when an MP4 or a QuickTime file is uploaded, for pre-flight to hold it to
 * each platform's shortest and longest video, and by the TikTok connector against the creator's longest.
 * Other containers (WebM) are not measured: their duration is left for the platform to judge.
 */

/** A file read by byte ranges: a staged upload, a stored file (a connector's MediaSource). */
export interface ByteRanges {
  readonly size: number;
  /** Bytes `start` to `endExclusive`. */
  range(start: number, endExclusive: number): Promise<Uint8Array>;
}

/** The types whose duration `videoSeconds` reads. */
export const MEASURED_VIDEO_TYPES: ReadonlySet<string> = new Set(['video/mp4', 'video/quicktime']);

/** Box headers: size (32 bits, or 1 then 64 bits, or 0 to the end) and type. */
async function boxAt(file: ByteRanges, at: number, end: number) {
  if (at + 8 > end) return undefined;
  const head = Buffer.from(await file.range(at, Math.min(end, at + 16)));
  let size = head.readUInt32BE(0);
  let header = 8;
  if (size === 1 && head.length >= 16) {
    size = Number(head.readBigUInt64BE(8));
    header = 16;
  } else if (size === 0) size = end - at;
  if (size < header) return undefined;
  return { type: head.toString('latin1', 4, 8), start: at, header, end: Math.min(end, at + size) };
}

/** The duration of an MP4 or MOV in seconds, from its `moov/mvhd`; null when it cannot be read. */
export async function videoSeconds(file: ByteRanges): Promise<number | null> {
  try {
    let box = await boxAt(file, 0, file.size);
    for (let guard = 0; box && box.type !== 'moov' && guard < 64; guard++) {
      box = await boxAt(file, box.end, file.size);
    }
    if (!box) return null;
    let child = await boxAt(file, box.start + box.header, box.end);
    for (let guard = 0; child && child.type !== 'mvhd' && guard < 64; guard++) {
      child = await boxAt(file, child.end, box.end);
    }
    if (!child) return null;
    const body = Buffer.from(
      await file.range(child.start + child.header, Math.min(child.end, child.start + child.header + 32)),
    );
    const version = body[0];
    const scale = version === 1 ? body.readUInt32BE(20) : body.readUInt32BE(12);
    const duration = version === 1 ? Number(body.readBigUInt64BE(24)) : body.readUInt32BE(16);
    return scale > 0 ? duration / scale : null;
  } catch {
    return null;
  }
}
