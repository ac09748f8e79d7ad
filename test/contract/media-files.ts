/** Real, minimal media files of every accepted type, written to a temporary directory. */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

/** "100 MB" of product.md. */
export const MEDIA_LIMIT_BYTES = 104_857_600;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A valid 1×1 RGB PNG; `shade` changes the pixel, so different shades are different files. */
export function pngBytes(shade = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const scanline = Buffer.from([0, shade & 0xff, 0x80, 0x40]); // filter byte + one pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(scanline)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JFIF JPEG: SOI, APP0 "JFIF", EOI. */
export function jpegBytes(): Buffer {
  return Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00,
    0x01, 0x00, 0x00, 0xff, 0xd9,
  ]);
}

export function pdfBytes(): Buffer {
  return Buffer.from(
    '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
    'latin1',
  );
}

function isoBox(type: string, payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + payload.length);
  return Buffer.concat([size, Buffer.from(type, 'latin1'), payload]);
}

function isoMedia(majorBrand: string, compatible: string[]): Buffer {
  const ftyp = isoBox(
    'ftyp',
    Buffer.concat([
      Buffer.from(majorBrand, 'latin1'),
      Buffer.alloc(4), // minor version
      ...compatible.map((brand) => Buffer.from(brand, 'latin1')),
    ]),
  );
  return Buffer.concat([ftyp, isoBox('free', Buffer.alloc(0)), isoBox('mdat', Buffer.alloc(16))]);
}

/** An MP4: an `ftyp` box of brand `isom`. */
export function mp4Bytes(): Buffer {
  return isoMedia('isom', ['isom', 'iso2', 'mp41']);
}

/** A QuickTime movie: an `ftyp` box of brand `qt  `. */
export function movBytes(): Buffer {
  return isoMedia('qt  ', ['qt  ']);
}

export function textBytes(): Buffer {
  return Buffer.from('This is plain text, not an image.\nSecond line.\n', 'utf8');
}

/** A temporary directory of test files. */
export class MediaFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'spm-contract-media-'));

  /** Writes `bytes` to `name`; returns the absolute path. */
  write(name: string, bytes: Uint8Array): string {
    const path = join(this.dir, name);
    writeFileSync(path, bytes);
    return path;
  }

  /** A sparse file of exactly `size` bytes that starts with `head`. */
  sized(name: string, head: Uint8Array, size: number): string {
    const path = this.write(name, head);
    truncateSync(path, size);
    return path;
  }

  directory(name: string): string {
    const path = join(this.dir, name);
    mkdirSync(path);
    return path;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
