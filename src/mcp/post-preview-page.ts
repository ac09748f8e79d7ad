/**
 * The post preview page (app-page.ts): one card per channel. Its script (post-preview-script.ts) speaks
 * the apps' postMessage protocol.
 */
import { appDocument } from './app-page.js';
import { POST_PREVIEW_SCRIPT } from './post-preview-script.js';

const STYLE = `
h2{font-size:var(--font-text-md-size,15px);margin:0;display:flex;gap:8px;flex-wrap:wrap;align-items:baseline}
.times{margin:0 0 8px;color:var(--pp-muted)}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:end;margin:8px 0 12px}
.bar label{display:flex;flex-direction:column;font-size:12px;color:var(--pp-muted)}
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
  page ??= appDocument({
    title: 'Post preview',
    waiting: 'Waiting for the post…',
    style: STYLE,
    script: POST_PREVIEW_SCRIPT,
  });
  return page;
}
