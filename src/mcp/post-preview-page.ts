/**
 * The post preview page: one self-contained HTML document (no address loaded, so the spec's restrictive
 * default CSP is all it needs), in the host's theme through the spec's CSS variables, each with a
 * fallback of its own. Its script (post-preview-script.ts) speaks the apps' postMessage protocol.
 */
import { POST_PREVIEW_SCRIPT } from './post-preview-script.js';

const STYLE = `
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
h2{font-size:var(--font-text-md-size,15px);margin:0;display:flex;gap:8px;flex-wrap:wrap;align-items:baseline}
.muted{color:var(--pp-muted)}
.times{margin:0 0 8px;color:var(--pp-muted)}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:end;margin:8px 0 12px}
.bar label{display:flex;flex-direction:column;font-size:12px;color:var(--pp-muted)}
button,input{font:inherit;color:inherit;background:var(--pp-bg2);border:1px solid var(--pp-border);border-radius:var(--pp-radius);padding:6px 10px}
button{cursor:pointer}button:disabled{opacity:.55;cursor:progress}
button.primary{background:var(--pp-text);color:var(--pp-bg);border-color:var(--pp-text)}
:focus-visible{outline:2px solid var(--pp-ring);outline-offset:2px}
#status{min-height:1.4em;margin:0 0 8px;white-space:pre-wrap}#status.error{color:var(--pp-danger)}
.channels{display:grid;gap:10px;grid-template-columns:repeat(auto-fill,minmax(260px,1fr))}
.channel{border:1px solid var(--pp-border);border-radius:var(--pp-radius);padding:10px;background:var(--pp-bg)}
.badge{font-size:12px;border-radius:999px;padding:1px 8px;background:var(--pp-bg2);color:var(--pp-muted)}
.badge.fail{background:var(--pp-danger-bg);color:var(--pp-danger)}.badge.skip{background:var(--pp-warn-bg);color:var(--pp-warn)}
.badge.send{color:var(--pp-ok)}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:8px 0 4px}
.text mark{background:var(--pp-danger-bg);color:var(--pp-danger);text-decoration:line-through}
.count{font-size:12px;color:var(--pp-muted);margin:0}.count.over{color:var(--pp-danger);font-weight:600}
.media{display:flex;flex-wrap:wrap;gap:6px;list-style:none;padding:0;margin:8px 0}
.media li{width:84px;min-height:72px;border:1px dashed var(--pp-border);border-radius:6px;font-size:11px;padding:4px;overflow:hidden;overflow-wrap:anywhere;background:var(--pp-bg2)}
.media li img{display:block;width:100%;height:52px;object-fit:cover;border-radius:4px;margin-bottom:2px}
.media li.over{border-color:var(--pp-danger);color:var(--pp-danger)}
.poll{border-left:3px solid var(--pp-border);padding-left:8px;margin:8px 0}.poll ol{margin:4px 0;padding-left:20px}
.detail{margin:4px 0;font-size:13px}.detail code{font-family:var(--pp-mono);overflow-wrap:anywhere}
.warnings{margin:8px 0 0;padding-left:18px;font-size:13px}.warnings .fail{color:var(--pp-danger)}.warnings .skip,.warnings .change{color:var(--pp-warn)}
`;

let page: string | undefined;

/** The document, built once per process (about 14 KB). */
export function postPreviewPage(): string {
  page ??= [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>Post preview</title><style>${STYLE.replaceAll('\n', '')}</style></head>`,
    '<body><main id="app"><p class="muted" role="status">Waiting for the post…</p></main>',
    `<script>${POST_PREVIEW_SCRIPT}</script></body></html>`,
  ].join('');
  return page;
}
