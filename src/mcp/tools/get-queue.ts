import { Queue, QueueRequest } from '../../domain/post-schemas.js';
import { postLine } from '../post-summary.js';
import { defineTool } from '../tool.js';

export const getQueue = defineTool({
  name: 'get_queue',
  title: 'Get queue',
  toolset: 'lifecycle',
  description: [
    "Shows a brand's queue: its local time now, daily queue times, the next free times a QUEUE post would take,",
    'and the queued posts still to go out. Call it to choose between QUEUE and SCHEDULE, or to say when queued posts go out.',
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
