/**
 * The queue calendar as an MCP App, registered like the post preview (post-preview-app.ts): for a client
 * that declared the extension, get_queue and list_posts name the page in `_meta.ui.resourceUri`, and
 * their results carry the calendar's data in `_meta` (queue-calendar.ts). Their text and structured
 * content stay as they are.
 */
import type { CallToolResult, ClientCapabilities, McpServer } from '@modelcontextprotocol/server';
import type { PublishingService } from '../service/publishing-service.js';
import { registerAppPage, rendersApps } from './post-preview-app.js';

export const QUEUE_CALENDAR_URI = 'ui://social-publisher/queue-calendar.html';
/** Where a tool result carries the calendar's data (not shown to the model). */
export const QUEUE_CALENDAR_META = 'social-publisher/queue-calendar';

/** The tools whose results the calendar shows, and its page. */
export const QUEUE_CALENDAR_TOOLS: Record<string, string> = {
  get_queue: QUEUE_CALENDAR_URI,
  list_posts: QUEUE_CALENDAR_URI,
};

export function registerQueueCalendarPage(server: McpServer, era: 'legacy' | 'modern'): void {
  registerAppPage(
    server,
    {
      name: 'queue-calendar',
      uri: QUEUE_CALENDAR_URI,
      title: 'Queue calendar',
      description:
        "A brand's week in its timezone: queue times, scheduled and queued posts per channel, free slots, and moving a post to another slot (an MCP App).",
      page: async () => (await import('./queue-calendar-page.js')).queueCalendarPage(),
    },
    era,
  );
}

/**
 * The result with the calendar of the week in `_meta`, for a client that renders apps; unchanged
 * otherwise. get_queue shows the brand's current week; list_posts the week of its `from` (the week of
 * today without one). A calendar that cannot be made leaves the result as it is.
 */
export async function withQueueCalendar(
  capabilities: ClientCapabilities | undefined,
  service: PublishingService,
  call: { name: string; args: Record<string, unknown> },
  result: CallToolResult,
  log: (message: string, error: unknown) => void,
): Promise<CallToolResult> {
  if (!(call.name in QUEUE_CALENDAR_TOOLS) || !rendersApps(capabilities)) return result;
  try {
    const { queueCalendar } = await import('./queue-calendar.js');
    const from = call.name === 'list_posts' ? (call.args.from as string | undefined) : undefined;
    const data = await queueCalendar(service, call.args.brandId as number, from);
    return { ...result, _meta: { ...result._meta, [QUEUE_CALENDAR_META]: data } };
  } catch (error) {
    log(`the queue calendar of ${call.name} could not be made`, error);
    return result;
  }
}
