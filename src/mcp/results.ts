/**
 * Tool results. Success: structured content is the REST body, text a short summary. Failure: a tool
 * result with `isError`, structured content the spec's error body, text every field error as plain
 * sentences, each with what fixes it (error-hints.ts); a confirmation the user did not give is keyed
 * `confirmation`. Domain errors never become JSON-RPC errors.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  DatabaseUnavailableError,
  isServiceError,
  isStorageFault,
  MEDIA_STORAGE_TEXT,
  MediaStorageError,
  type ServiceError,
  type StorageFault,
  StorageFullError,
  storageFaultBody,
  toErrorBody,
  ValidationError,
} from '../domain/errors.js';
import { listBody as pageBody } from '../service/pagination.js';
import type { Page } from '../service/publishing-service.js';
import { ConfirmationDeclinedError } from './confirmation-declined.js';
import type { ToolSuccess } from './tool.js';

export function successResult(success: ToolSuccess): CallToolResult {
  return { content: [{ type: 'text', text: success.summary }], structuredContent: success.body };
}

/** `/v1/brands?page=2&per_page=10`: over MCP, list results carry the REST paths of their neighbour pages. */
export function listBody<T>(page: Page<T>, path: string): Record<string, unknown> {
  return pageBody(page, (target, perPage) => `${path}?page=${target}&per_page=${perPage}`);
}

/** "Page 1 of 3 (25 in all); call again with page=2 for more." */
export function pageSummary<T>(page: Page<T>, noun: string): string {
  const { currentPage, lastPage, total } = page.pagination;
  let text = `${total} ${noun}${total === 1 ? '' : 's'} in all; page ${currentPage} of ${lastPage}.`;
  if (currentPage < lastPage) text += ` Call again with page=${currentPage + 1} for more.`;
  return text;
}

/** A service error as plain lines: its message, then every field error (the text without hints). */
function plainErrorLines(error: ServiceError): string[] {
  const lines = [error.message];
  if (error instanceof ValidationError) {
    for (const [field, messages] of Object.entries(error.errors)) {
      for (const text of messages) lines.push(`- ${field}: ${text}`);
    }
  }
  return lines;
}

/** What an AbortSignal carries when the MCP client cancels a call (the SDK aborts with a string reason). */
function isAbortReason(error: unknown): boolean {
  return (
    typeof error === 'string' ||
    (error instanceof Error && error.cause instanceof Error && error.cause.name === 'AbortError')
  );
}

/**
 * A storage fault for an assistant, which would otherwise retry: what happened, that nothing was saved,
 * and that no retry can succeed until someone acts on the server. An unavailable database is the
 * exception: it passes, so the call is to be made again a little later (it is safe to).
 */
function storageFaultText(error: StorageFault): string {
  if (error instanceof DatabaseUnavailableError) {
    const doubt = error.inDoubt
      ? ` It stopped answering before it confirmed the change, which may have been saved: check with get_post or list_posts before calling again (create_post called again within ten minutes answers with the post saved first).`
      : '';
    return `The server's database, at ${error.database}, is unavailable just now (${error.problem}).${doubt} Try the call again in a few seconds (after ${error.retryAfterSeconds} s); trying again is safe. If it keeps failing for minutes, tell the user that the server's database is down.`;
  }
  if (error instanceof MediaStorageError) {
    return `${MEDIA_STORAGE_TEXT} Do not retry at once: tell the user.`;
  }
  return error instanceof StorageFullError
    ? "The server's disk is full, so nothing was saved. Do not retry: it cannot succeed until the server's operator frees space on its disk. Tell the user."
    : "The server's data directory is no longer writable (read-only or its permissions changed), so nothing was saved. Do not retry: it cannot succeed until the server's operator makes it writable again. Tell the user.";
}

/**
 * Converts whatever a tool threw into a tool result; unexpected errors are logged, not shown. A storage
 * fault is shown for what it is and its real cause logged once. `explain` words a service error's text
 * (error-hints.ts: every error with what fixes it); without it, or should it fail, the plain lines.
 */
export async function errorResult(
  error: unknown,
  log: (message: string, error: unknown) => void,
  explain?: (error: ServiceError) => Promise<string[]>,
): Promise<CallToolResult> {
  if (error instanceof ConfirmationDeclinedError) {
    const text = `${error.message}\nDo not try again unless the user asks for it.`;
    return {
      isError: true,
      content: [{ type: 'text', text }],
      structuredContent: { status: 'error', message: error.message, errors: { confirmation: error.message } },
    };
  }
  if (isServiceError(error)) {
    const lines = explain ? await explain(error).catch(() => plainErrorLines(error)) : plainErrorLines(error);
    return {
      isError: true,
      content: [{ type: 'text', text: lines.join('\n') }],
      structuredContent: toErrorBody(error) as unknown as Record<string, unknown>,
    };
  }
  if (isStorageFault(error)) {
    // The store logs an outage of its database once, not once per call.
    if (!(error instanceof DatabaseUnavailableError)) {
      log(`tool call failed, nothing saved: ${error.reason}`, error.cause ?? error);
    }
    return {
      isError: true,
      content: [{ type: 'text', text: storageFaultText(error) }],
      structuredContent: storageFaultBody(error) as unknown as Record<string, unknown>,
    };
  }
  // A call the client cancelled is not a failure of ours; its result is never sent anyway.
  if (!(error instanceof Error && error.name === 'AbortError') && !isAbortReason(error)) {
    log('tool call failed unexpectedly', error);
  }
  const message = 'The server failed to complete the request. Its log has the details; try again.';
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    structuredContent: { status: 'error', message, errors: {} },
  };
}
