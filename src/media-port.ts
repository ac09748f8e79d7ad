/** The media ports: where uploaded files are kept (MediaStore), and how media URLs are fetched. */

/** A file being written into the media store: size, hash and first bytes known once fully read. */
export interface StagedMedia {
  size: number;
  sha256: string;
  /** The first bytes of the file, enough to detect its type. */
  head: Uint8Array;
  /** True when the source was longer than the limit; reading stopped there. */
  tooLarge: boolean;
}

/** How a caller follows and stops a long upload. */
export interface TransferOptions {
  /** Aborts the transfer; whatever was staged is discarded. */
  signal?: AbortSignal | undefined;
  /** Told how many bytes have been read so far (and the total, when known). */
  onProgress?: ((bytes: number, total: number | undefined) => void) | undefined;
}

export interface MediaStore {
  /**
   * Streams `source` into a staging file, stopping as soon as it exceeds `limitBytes`. Rejects (and
   * leaves nothing) when `signal` aborts.
   */
  stage(
    source: AsyncIterable<Uint8Array>,
    limitBytes: number,
    options?: TransferOptions & { total?: number | undefined },
  ): Promise<StagedMedia & { token: string }>;
  /** Bytes `start` to `endExclusive` of a staged file: what is read of an upload before it is kept. */
  stagedRange(token: string, start: number, endExclusive: number): Promise<Uint8Array>;
  /**
   * Moves a staged file to its permanent place, whole or not at all; returns the stored path. `type`:
   * its detected MIME type (what object storage serves it as).
   */
  commit(token: string, brandId: number, mediaId: string, type: string): Promise<string>;
  /**
   * A stored file, found by brand and media id (not by the path stored with it), as a Blob read as it is
   * consumed: what connectors upload, so that a 100 MB video is never in memory whole. `release` once
   * done with it (object storage deletes the local copy it read the object into).
   */
  open(brandId: number, mediaId: string, type: string): Promise<OpenedMedia>;
  /**
   * Object storage only: an address of a stored file that anyone holding it can GET until
   * `expiresAtMs`, and that names that file only (a presigned URL), for platforms that fetch media.
   */
  presign?(brandId: number, mediaId: string, expiresAtMs: number): Promise<string>;
  /** Removes a staged file; never throws. */
  discard(token: string): Promise<void>;
  /** Removes a stored file; never throws. */
  remove(storedPath: string): Promise<void>;
}

/** A stored file opened for reading (MediaStore.open). */
export interface OpenedMedia {
  blob: Blob;
  /** Frees what reading needed; runs once, whoever calls it again. */
  release(): Promise<void>;
}

/** A file being downloaded: its bytes, and the total the server announced (not trusted, only shown). */
export interface Download {
  body: AsyncIterable<Uint8Array>;
  announcedBytes: number | undefined;
}

/** Downloads media from public URLs, refusing private addresses and endless transfers. */
export interface MediaDownloader {
  /** Rejects with a ValidationError on `url` for a URL it will not or cannot fetch. */
  open(url: string, signal?: AbortSignal): Promise<Download>;
}
