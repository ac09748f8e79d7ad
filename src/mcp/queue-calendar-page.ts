/**
 * The queue calendar page (app-page.ts): the week as a table, one column a day and one row an hour, with
 * free slots and posts in their cells. Its script (queue-calendar-script.ts) speaks the apps' protocol.
 */
import { appDocument } from './app-page.js';
import { QUEUE_CALENDAR_SCRIPT } from './queue-calendar-script.js';

const STYLE = `
.bar{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.chips{display:flex;flex-wrap:wrap;gap:4px;list-style:none;padding:0;margin:4px 0}
.chips li{font-size:11px;border-radius:999px;padding:0 6px;background:var(--pp-bg2);color:var(--pp-muted)}
.legend{margin:0 0 8px}.legend li{font-size:12px}
.week{width:100%;border-collapse:collapse;table-layout:fixed}
.week th,.week td{border:1px solid var(--pp-border);vertical-align:top;padding:4px;text-align:left}
.week thead th{font-size:12px}.week thead th.today{color:var(--pp-ring)}
.week tbody th{width:52px;font-size:12px;font-weight:400;color:var(--pp-muted)}
.slot{margin:0 0 4px;font-size:12px;border-radius:6px;padding:2px 6px}
.slot.gap{border:1px dashed var(--pp-warn);color:var(--pp-warn);background:var(--pp-warn-bg)}
.slot.past{color:var(--pp-muted);opacity:.7}
.post{border:1px solid var(--pp-border);border-left:3px solid var(--pp-ok);border-radius:6px;padding:4px;margin:0 0 4px;background:var(--pp-bg)}
.post.queued{border-left-color:var(--pp-ring)}.post.failed{border-left-color:var(--pp-danger)}
.post p{margin:0;font-size:12px}.post .head{display:flex;justify-content:space-between;gap:4px}
.post .caption{overflow-wrap:anywhere}
.badge{font-size:11px;color:var(--pp-muted)}
.move{display:flex;gap:4px;margin-top:4px}.move select{min-width:0;flex:1;padding:2px}.move button{padding:2px 6px}
.post{transition:transform .2s ease}.post.movable{cursor:grab;user-select:none}.post .head time{margin-right:auto}
.grip{flex:none;width:22px;height:24px;margin:-4px 0 -4px -4px;padding:3px 5px;touch-action:none;
background:radial-gradient(circle,var(--pp-muted) 1.5px,transparent 2px) content-box 0 0/6px 6px}
.post.lifted{position:relative;z-index:2;cursor:grabbing;transition:none;box-shadow:0 6px 18px rgba(0,0,0,.3);opacity:.75}
.slot{transition:background-color .15s,color .15s}
#app.dragging .slot.gap{outline:2px solid var(--pp-ring);outline-offset:1px}
#app.dragging .slot.gap.over{background:var(--pp-ring);color:var(--pp-bg)}
@media (prefers-reduced-motion:reduce){.post,.slot{transition:none}}
`;

let page: string | undefined;

/** The document, built once per process. */
export function queueCalendarPage(): string {
  page ??= appDocument({
    title: 'Queue calendar',
    waiting: 'Waiting for the week…',
    style: STYLE,
    script: QUEUE_CALENDAR_SCRIPT,
  });
  return page;
}
