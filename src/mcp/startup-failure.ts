/**
 * A stdio server that could not start tells its client why. Its client's `initialize` (or whatever request
 * comes first) is answered with a JSON-RPC error carrying the reason, instead of a result: an MCP host
 * shows that message, where a server that just exits leaves the user with "server disconnected". The
 * reason also goes to stderr (main.ts), for the host's log. No dependency: zod or the SDK may be what
 * failed to load.
 */

/** JSON-RPC's range for server errors (-32000 to -32099). */
export const STARTUP_FAILED = -32000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads stdin until the first JSON-RPC request, answers it with `reason`, and resolves; resolves without
 * answering when stdin ends, on a terminal, or after `waitMs` without a request.
 */
export function refuseStartup(
  reason: string,
  options: { waitMs?: number; stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream } = {},
): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (stdin.isTTY || stdin.readableEnded || stdin.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', done);
      stdin.off('error', done);
      stdin.destroy();
      resolve();
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n')) {
        const line = text.slice(0, newline).trim();
        text = text.slice(newline + 1);
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (!isObject(message) || typeof message.method !== 'string' || message.id === undefined) continue;
        const error = { code: STARTUP_FAILED, message: `social-publisher-mcp could not start: ${reason}` };
        stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, error })}\n`, () => done());
        return;
      }
    };
    const timer = setTimeout(done, options.waitMs ?? 3_000);
    stdin.on('data', onData);
    stdin.once('end', done);
    stdin.once('error', done);
    stdin.resume();
  });
}
