/**
 * Reading an MCP POST body with a bound. The body is read by us (not the SDK's transport) because a
 * request without a session must be parsed to see whether it is an `initialize`; reading it unbounded
 * let one request with a valid key fill the server's memory. A declared length over the limit is refused
 * before anything is read; otherwise reading stops at the first chunk past the limit.
 */

/** The body's declared Content-Length is over `maxBytes` (refuse it without reading). */
export function declaresTooLarge(request: Request, maxBytes: number): boolean {
  const declared = request.headers.get('content-length');
  return declared !== null && Number(declared) > maxBytes;
}

/** The body as text, or undefined once more than `maxBytes` have arrived. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string | undefined> {
  if (declaresTooLarge(request, maxBytes)) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    received += value.byteLength;
    if (received > maxBytes) {
      // Released, not cancelled: cancelling destroys the connection before the 413 can reach the client.
      // Left unread, the rest is discarded by the HTTP server once the answer is sent.
      reader.releaseLock();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** "4 MiB (4194304 bytes)" */
export function describeBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes % MiB === 0) return `${bytes / MiB} MiB (${bytes} bytes)`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}
