/**
 * What the pages of this server's MCP Apps share: one self-contained HTML document each (no address
 * loaded, so the spec's restrictive default CSP is all it needs), in the host's theme through the spec's
 * CSS variables, each with a fallback of its own, and the same controls, focus ring and status line.
 */

const BASE_STYLE = `
:root{color-scheme:light dark;
--pp-bg:var(--color-background-primary,#fff);--pp-bg2:var(--color-background-secondary,#f4f4f5);
--pp-text:var(--color-text-primary,#18181b);--pp-muted:var(--color-text-secondary,#52525b);
--pp-border:var(--color-border-primary,#d4d4d8);--pp-danger:var(--color-text-danger,#b91c1c);
--pp-danger-bg:var(--color-background-danger,#fee2e2);--pp-warn:var(--color-text-warning,#92400e);
--pp-warn-bg:var(--color-background-warning,#fef3c7);--pp-ok:var(--color-text-success,#166534);
--pp-ring:var(--color-ring-primary,#2563eb);--pp-radius:var(--border-radius-md,8px);
--pp-font:var(--font-sans,system-ui,-apple-system,"Segoe UI",sans-serif);--pp-mono:var(--font-mono,ui-monospace,monospace)}
:root[data-theme=dark]{--pp-bg:var(--color-background-primary,#18181b);--pp-bg2:var(--color-background-secondary,#27272a);
--pp-text:var(--color-text-primary,#fafafa);--pp-muted:var(--color-text-secondary,#a1a1aa);--pp-border:var(--color-border-primary,#3f3f46);
--pp-danger:var(--color-text-danger,#fca5a5);--pp-danger-bg:var(--color-background-danger,#450a0a);--pp-warn:var(--color-text-warning,#fcd34d);
--pp-warn-bg:var(--color-background-warning,#422006);--pp-ok:var(--color-text-success,#86efac)}
*{box-sizing:border-box}
body{margin:0;padding:12px;background:var(--pp-bg);color:var(--pp-text);font:var(--font-text-sm-size,14px)/1.45 var(--pp-font)}
h1{font-size:var(--font-heading-sm-size,16px);margin:0 0 4px}
.muted{color:var(--pp-muted)}
button,input,select{font:inherit;color:inherit;background:var(--pp-bg2);border:1px solid var(--pp-border);border-radius:var(--pp-radius);padding:6px 10px}
button{cursor:pointer}button:disabled{opacity:.55;cursor:progress}
button.primary{background:var(--pp-text);color:var(--pp-bg);border-color:var(--pp-text)}
:focus-visible{outline:2px solid var(--pp-ring);outline-offset:2px}
#status{min-height:1.4em;margin:0 0 8px;white-space:pre-wrap}#status.error{color:var(--pp-danger)}
`;

/** A page: the base style and the page's own, a waiting line, and its script. */
export function appDocument(page: { title: string; waiting: string; style: string; script: string }): string {
  const style = (BASE_STYLE + page.style).replaceAll('\n', '');
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>${page.title}</title><style>${style}</style></head>`,
    `<body><main id="app"><p class="muted" role="status">${page.waiting}</p></main>`,
    `<script>${page.script}</script></body></html>`,
  ].join('');
}
