/**
 * A small MCP Apps host for browser tests, on a loopback HTTP server: `/` is the host page, which puts
 * the app's page in an iframe sandboxed to scripts only (an opaque origin) and speaks the apps'
 * postMessage protocol with it (spec 2026-01-26): it answers `ui/initialize` with its context, waits
 * for `ui/notifications/initialized`, follows `ui/notifications/size-changed`, and passes `tools/call`
 * to `window.callTool` (which the test binds to a real MCP client). `/view` serves the app's page under
 * the spec's restrictive default CSP, the one a host applies when the resource declares no `csp`.
 * Every message from the view is kept in `window.fromView`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The CSP a host MUST use when the resource's `_meta.ui.csp` is omitted, and what a sandbox adds. */
export const DEFAULT_APP_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'self'",
].join('; ');

function hostPage(hostContext: unknown, width: number): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Test host</title>
<link rel="icon" href="data:,"><style>body{margin:0;background:#111}iframe{border:0;display:block;width:${width}px;height:200px}</style></head>
<body><iframe id="view" title="Post preview" sandbox="allow-scripts" src="/view"></iframe>
<script>
const view = document.getElementById('view');
window.fromView = [];
let initialized;
window.viewReady = new Promise((resolve) => { initialized = resolve; });
window.sendToView = (method, params) => view.contentWindow.postMessage({ jsonrpc: '2.0', method, params }, '*');
window.addEventListener('message', async (event) => {
  if (event.source !== view.contentWindow) return;
  const message = event.data;
  window.fromView.push(message);
  const reply = (body) => view.contentWindow.postMessage({ jsonrpc: '2.0', id: message.id, ...body }, '*');
  switch (message.method) {
    case 'ui/initialize':
      reply({ result: {
        protocolVersion: '2026-01-26',
        hostInfo: { name: 'test-host', version: '1.0.0' },
        hostCapabilities: { serverTools: {} },
        hostContext: ${JSON.stringify(hostContext)},
      } });
      break;
    case 'ui/notifications/initialized':
      initialized();
      break;
    case 'ui/notifications/size-changed':
      view.style.height = message.params.height + 'px';
      break;
    case 'tools/call':
      try { reply({ result: await window.callTool(message.params) }); }
      catch (error) { reply({ error: { code: -32000, message: String(error) } }); }
      break;
  }
});
</script></body></html>`;
}

export interface AppsHost {
  url: string;
  close(): Promise<void>;
}

export async function startAppsHost(page: string, hostContext: unknown, width = 960): Promise<AppsHost> {
  const server = createServer((request, response) => {
    if (request.url === '/view') {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': DEFAULT_APP_CSP,
      });
      response.end(page);
    } else if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(hostPage(hostContext, width));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
