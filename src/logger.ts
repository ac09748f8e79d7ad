/** Diagnostics go to stderr: in stdio mode stdout belongs to the protocol. */
export function logError(message: string, error?: unknown): void {
  const detail =
    error instanceof Error ? (error.stack ?? error.message) : error === undefined ? '' : String(error);
  process.stderr.write(`[social-publisher-mcp] ${message}${detail ? `: ${detail}` : ''}\n`);
}

export function logInfo(message: string): void {
  process.stderr.write(`[social-publisher-mcp] ${message}\n`);
}
