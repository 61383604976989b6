import type { ChatMessage } from '../../messages/types.js';
import { isObj, type Obj, parseObject } from '../../recall/json-object.js';
import { RECALL_TOOL_NAME } from '../../recall/tool.js';
import type { ReplyCalls, StreamReading } from '../../recall/wire.js';
import { chatReplyCalls } from './recall-calls.js';

// A streamed chat reply as recall reads it, event by event (the events come from the stream's
// parser, http/stream-end.ts's eventsource-parser): whether it has started calling tools, and the
// calls put together from their deltas once it ended.

interface Accumulated {
  id?: string;
  type?: string;
  name: string;
  arguments: string;
}

function parse(data: string): Obj | null {
  return data.startsWith('[DONE]') ? null : parseObject(data);
}

export function chatStreamReading(): StreamReading<ChatMessage> {
  const calls = new Map<number, Accumulated>();
  let content = '';
  let usage: unknown;
  let done = false;
  // The reply's own id, model and time, for the events recap writes to close it.
  let head: Obj = {};
  return {
    event(data) {
      if (data.startsWith('[DONE]')) done = true;
      const chunk = parse(data);
      if (!chunk) return;
      head = { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model };
      if (isObj(chunk.usage)) usage = chunk.usage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isObj(c) && (c.index ?? 0) === 0) : undefined;
      const delta = isObj(choice) && isObj(choice.delta) ? choice.delta : null;
      if (!delta) return;
      if (typeof delta.content === 'string') content += delta.content;
      for (const d of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        if (!isObj(d)) continue;
        const index = typeof d.index === 'number' ? d.index : 0;
        const call = calls.get(index) ?? { name: '', arguments: '' };
        if (typeof d.id === 'string') call.id = d.id;
        if (typeof d.type === 'string') call.type = d.type;
        const fn = isObj(d.function) ? d.function : {};
        if (typeof fn.name === 'string') call.name += fn.name;
        if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
        calls.set(index, call);
      }
    },
    callsTools: () => calls.size > 0,
    ended: () => done,
    // Decided on the whole name: a name is whole once its call's arguments or a later call began.
    // Until then a name that could still become recap_recall counts as one (its bytes stay held).
    startedRecall: () => {
      const last = Math.max(...calls.keys());
      return [...calls.entries()].some(([index, c]) => {
        if (c.name === RECALL_TOOL_NAME) return true;
        const whole = c.arguments !== '' || index < last;
        return !whole && c.name !== '' && RECALL_TOOL_NAME.startsWith(c.name);
      });
    },
    replyCalls(): ReplyCalls<ChatMessage> | null {
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, c]) => ({ id: c.id, type: c.type ?? 'function', function: { name: c.name, arguments: c.arguments } }));
      return chatReplyCalls({ role: 'assistant', content: content === '' ? null : content, tool_calls: toolCalls });
    },
    usage: () => usage,
    closingEvents(summed) {
      const events: Obj[] = [{ ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }];
      if (usage !== undefined) events.push({ ...head, choices: [], usage: summed });
      return [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), 'data: [DONE]\n\n'];
    },
  };
}

/** The data of a chunk that carries usage, with `usage` in its place; null for any other event. */
export function chatEventWithUsage(data: string, usage: unknown): string | null {
  const chunk = parse(data);
  if (!chunk || !isObj(chunk.usage)) return null;
  return JSON.stringify({ ...chunk, usage });
}
