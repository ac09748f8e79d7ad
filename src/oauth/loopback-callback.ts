/**
 * stdio's end of a sign-in begun in the conversation (`connect_channel`): the platform sends the
 * browser back to the redirect URI on this machine's loopback, where this listener hands the address
 * to the sign-ins and answers the browser's user. Started on the first sign-in, it stays until the
 * process ends, without keeping it alive.
 */
import { createServer, type Server } from 'node:http';
import type { ServerSignIns } from './server-sign-in.js';

export class LoopbackCallback {
  private listening: Promise<void> | undefined;
  private server: Server | undefined;

  constructor(
    private readonly redirectUri: string,
    private readonly signIns: () => ServerSignIns,
  ) {}

  /** Listens on the redirect URI's host, port and path (once); rejects with what to do if it cannot. */
  ensure(): Promise<void> {
    this.listening ??= this.listen().catch((error: unknown) => {
      this.listening = undefined;
      throw error;
    });
    return this.listening;
  }

  close(): void {
    this.server?.close();
  }

  private async listen(): Promise<void> {
    const at = new URL(this.redirectUri);
    if (at.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(at.hostname)) {
      throw new Error(
        `The redirect URI ${this.redirectUri} is not on this machine's loopback: a sign-in from the conversation needs one (SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI), or use social-publisher-mcp connect --paste-code.`,
      );
    }
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', at.origin);
      if (url.pathname !== at.pathname) {
        res
          .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Not a sign-in of this program.');
        return;
      }
      this.signIns()
        .complete(url.href)
        .then(
          (channel) =>
            `Connected: ${channel.connection.account ?? channel.name} is the channel "${channel.name}" (id ${channel.id}). You can close this tab and go back to the conversation.`,
          (error: unknown) => `Not connected: ${(error as Error).message}`,
        )
        .then((text) => {
          res.writeHead(text.startsWith('Connected') ? 200 : 400, {
            'content-type': 'text/plain; charset=utf-8',
            'cache-control': 'no-store',
          });
          res.end(text);
        });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new Error(
            error.code === 'EADDRINUSE'
              ? `Cannot listen for the sign-in on ${at.origin}: the port is in use (another sign-in or program). Free it, or set SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI to another address registered with the app.`
              : `Cannot listen for the sign-in on ${at.origin}: ${error.message}`,
          ),
        ),
      );
      server.listen(Number(at.port || 80), at.hostname.replace(/^\[|\]$/g, ''), resolve);
    });
    server.unref();
    this.server = server;
  }
}
