import { Queue, QueueRequest } from '../../domain/post-schemas.js';
import { postLine } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const getQueue = defineTool({
  name: 'get_queue',
  title: 'Get queue',
  description: [
    "Shows a brand's queue: the brand's local time now (localNow), its daily queue times, the next free times a",
    'QUEUE post would take (nextSlots, taken times skipped) and the queued posts still to go out, soonest first.',
    'Call it before choosing between publishMode QUEUE (the next free slot) and SCHEDULE (a time you pick), and to',
    "tell the user when queued posts go out. Times are in the brand's timezone (Y-m-d H:i:s) and in UTC.",
    'count: how many free slots to show (1-50, default 5).',
  ].join(' '),
  input: QueueRequest,
  output: Queue,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(service, args) {
    const queue = await service.getQueue(args);
    const slots = queue.nextSlots.map((slot) => `- ${slot.scheduledAt} (${slot.at} UTC)`);
    const queued = queue.queued.length
      ? [`${queue.queued.length} queued post${queue.queued.length === 1 ? '' : 's'} to go out:`]
      : ['No queued posts to go out.'];
    return {
      body: { status: 'success', data: queue },
      summary: [
        `Brand ${queue.brandId} (${queue.timezone}): local time now ${queue.localNow} (${queue.now} UTC).`,
        `Queue times: ${queue.queueTimes.join(', ')}. Next free queue times:`,
        ...slots,
        ...queued,
        ...queue.queued.map(postLine),
      ].join('\n'),
    };
  },
});
