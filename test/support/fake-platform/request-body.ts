/**
 * A request's body as a fake platform reads it, parsed once by the kit before any route runs: JSON, a
 * form (urlencoded or multipart, its fields in order) and multipart files with their bytes. The bytes of
 * any other body are kept as they came (a blob upload).
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';

export interface UploadedFile {
  /** The multipart part's name. */
  field: string;
  /** The file name the client gave. */
  name: string;
  type: string;
  bytes: Buffer;
  /** The file was larger than the kit's `fileSizeLimit`: its bytes are cut there. */
  truncated: boolean;
  /** Every byte of the file received, kept or not. */
  size: number;
}

export interface RequestBody {
  /** The content-type without its parameters, lower case; '' when none was sent. */
  type: string;
  /** The body as sent (empty for multipart: see `fields` and `files`). */
  bytes: Buffer;
  /** The body parsed as JSON; undefined when it is not JSON or does not parse. */
  json?: unknown;
  /** Form fields (urlencoded or multipart), in order. */
  fields: [string, string][];
  files: UploadedFile[];
}

export async function readRequestBody(req: IncomingMessage, fileSizeLimit?: number): Promise<RequestBody> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') return readMultipart(req, type, fileSizeLimit);
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const body: RequestBody = { type, bytes, fields: [], files: [] };
  if (type === 'application/json' && bytes.length > 0) {
    try {
      body.json = JSON.parse(bytes.toString('utf8'));
    } catch {
      // Left undefined: each platform answers an unreadable body its own way.
    }
  }
  if (type === 'application/x-www-form-urlencoded') body.fields = [...new URLSearchParams(bytes.toString())];
  return body;
}

function readMultipart(req: IncomingMessage, type: string, fileSizeLimit?: number): Promise<RequestBody> {
  const body: RequestBody = { type, bytes: Buffer.alloc(0), fields: [], files: [] };
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: req.headers });
    const limit = fileSizeLimit ?? Number.POSITIVE_INFINITY;
    parser.on('field', (name, value) => body.fields.push([name, value]));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      let [size, kept] = [0, 0];
      // Every byte is read (and counted); only the first `fileSizeLimit` are kept.
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (kept >= limit) return;
        const part = chunk.subarray(0, limit - kept);
        chunks.push(part);
        kept += part.length;
      });
      stream.on('end', () =>
        body.files.push({
          field,
          name: info.filename ?? '',
          type: info.mimeType,
          bytes: Buffer.concat(chunks),
          truncated: size > kept,
          size,
        }),
      );
    });
    parser.on('close', () => resolve(body));
    parser.on('error', reject);
    req.pipe(parser);
  });
}

/** Form fields in bracket notation (`a[]=1`, `a[b]=2`, as Rails and PHP read them) as nested objects. */
export function nestedFields(fields: Iterable<[string, string]>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, value] of fields) {
    const keys = [...name.matchAll(/^[^[]+|\[([^\]]*)\]/g)].map((match) => match[1] ?? match[0]);
    assign(params, keys, value);
  }
  return params;
}

function assign(target: Record<string, unknown>, keys: readonly string[], value: string): void {
  const [key, ...rest] = keys;
  if (key === undefined) return;
  const current = target[key];
  if (rest.length === 0) target[key] = value;
  else if (rest[0] === '') target[key] = [...(Array.isArray(current) ? current : []), value];
  else {
    const child = typeof current === 'object' && current !== null && !Array.isArray(current) ? current : {};
    target[key] = child;
    assign(child as Record<string, unknown>, rest, value);
  }
}
