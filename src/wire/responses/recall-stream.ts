import { isObj, type Obj, parseObject } from '../../recall/json-object.js';
import { RECALL_TOOL_NAME } from '../../recall/tool.js';
import type { ReplyCalls, StreamReading } from '../../recall/wire.js';
import { isToolCall, responsesReplyCalls, withoutCalls } from './recall-items.js';
import type { ResponseItem } from './types.js';

// A streamed Responses reply as recall reads it, event by event (typed events: each data's `type`):
// it starts calling tools at the first `response.output_item.added` of a function (or custom tool)
// call, and its output is the terminal event's response (`response.completed`, `.incomplete`,
// `.failed`), else the items its `response.output_item.done` events carried. Where the hop bound
// ends a reply that still calls recap_recall, its terminal event closes it without the calls.

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export function responsesStreamReading(): StreamReading<ResponseItem> {
  const done: unknown[] = [];
  let terminal: Obj | null = null;
  let final: Obj | null = null;
  let callsTools = false;
  let startedRecall = false;
  return {
    event(data) {
      const event = parseObject(data);
      if (!event) return;
      if (event.type === 'response.output_item.added' && isObj(event.item) && isToolCall(event.item)) {
        callsTools = true;
        if (event.item.name === RECALL_TOOL_NAME) startedRecall = true;
      }
      if (event.type === 'response.output_item.done' && typeof event.output_index === 'number') done[event.output_index] = event.item;
      if (typeof event.type === 'string' && TERMINAL.has(event.type) && isObj(event.response)) {
        terminal = event;
        final = event.response;
      }
    },
    callsTools: () => callsTools,
    startedRecall: () => startedRecall,
    // A failed response (or a stream cut before its end) is never continued.
    ended: () => terminal !== null && terminal.type !== 'response.failed',
    replyCalls: (): ReplyCalls<ResponseItem> | null => responsesReplyCalls(Array.isArray(final?.output) ? final.output : done.filter(Boolean)),
    usage: () => final?.usage ?? undefined,
    closingEvents(usage) {
      if (!terminal || !final) return [];
      const response = { ...final, output: withoutCalls(final.output), ...(usage === undefined ? {} : { usage }) };
      return [`event: ${String(terminal.type)}\ndata: ${JSON.stringify({ ...terminal, response })}\n\n`];
    },
  };
}

/** The data of a terminal event with `usage` in its response's place; null for any other event. */
export function responsesEventWithUsage(data: string, usage: unknown): string | null {
  const event = parseObject(data);
  if (!event || typeof event.type !== 'string' || !TERMINAL.has(event.type) || !isObj(event.response)) return null;
  return JSON.stringify({ ...event, response: { ...event.response, usage } });
}
