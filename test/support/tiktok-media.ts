/**
 * Videos for the TikTok tests: an MP4 whose `moov/mvhd` says its duration (what the connector reads to
 * check the creator's longest video), padded to any size with an `mdat` box.
 */
import { writeFileSync } from 'node:fs';

function box(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

/** The head of an MP4 of `seconds` (ftyp, moov with its mvhd), without media data. */
export function mp4Head(seconds: number): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.alloc(4), Buffer.from('isomiso2mp41', 'latin1')]),
  );
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1_000, 12); // timescale
  mvhd.writeUInt32BE(Math.round(seconds * 1_000), 16); // duration
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd))]);
}

/** An MP4 of `seconds`, `size` bytes in all (at least the head's). */
export function mp4Bytes(seconds: number, size = 4_096): Buffer {
  const head = mp4Head(seconds);
  const mdat = Buffer.alloc(Math.max(8, size - head.length));
  mdat.writeUInt32BE(mdat.length, 0);
  mdat.write('mdat', 4, 'latin1');
  for (let i = 8; i < mdat.length; i += 4096) mdat[i] = i % 251;
  return Buffer.concat([head, mdat]);
}

/** Writes an MP4 of `seconds` and `size` bytes to `path`, in pieces (a large one never whole in memory). */
export function writeMp4(path: string, seconds: number, size: number): void {
  const head = mp4Head(seconds);
  const mdatHead = Buffer.alloc(8);
  mdatHead.writeUInt32BE(size - head.length, 0);
  mdatHead.write('mdat', 4, 'latin1');
  writeFileSync(path, Buffer.concat([head, mdatHead]));
  const piece = Buffer.alloc(1024 * 1024, 7);
  for (let written = head.length + 8; written < size; written += piece.length) {
    writeFileSync(path, piece.subarray(0, Math.min(piece.length, size - written)), { flag: 'a' });
  }
}
