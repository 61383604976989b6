import { isObj, type Obj, parseObject } from '../../recall/json-object.js';
import type { ReplyCalls, StreamReading } from '../../recall/wire.js';
import { isRecallUse, replyCallsOf } from './recall-content.js';
import type { AnthropicMessage, ContentBlock } from './types.js';

// A streamed Anthropic reply as recall reads it, event by event: its content blocks assembled as
// the SDK assembles them (text, thinking and signature deltas, a tool_use's input from its
// input_json_delta fragments), its usage from message_start updated by message_delta (cumulative).
// It starts calling tools at the first content_block_start of a `tool_use`; it ended at
// message_stop. The client reads one message whatever the hops: a continuation's message_start
// and pings are not relayed, and its blocks are numbered on from the blocks the client has been
// shown already (those the hops before relayed, up to their first tool call).

interface Assembling {
  block: ContentBlock;
  json: string;
}

export interface MessagesStreamReading extends StreamReading<AnthropicMessage> {
  /** Blocks the client has been shown of this hop and the ones before it. */
  shown(): number;
}

export function messagesStreamReading(previous?: StreamReading<AnthropicMessage>): MessagesStreamReading {
  const before = (previous as MessagesStreamReading | undefined)?.shown() ?? 0;
  const blocks: Assembling[] = [];
  let usage: Obj | undefined;
  let stopReason: unknown = null;
  let callsTools = false;
  let startedRecall = false;
  let ended = false;
  let shownHere = 0;
  const relayIndex = (event: Obj): Obj => (typeof event.index === 'number' ? { ...event, index: event.index + before } : event);
  const reading: MessagesStreamReading = {
    event(data) {
      const event = parseObject(data);
      if (!event) return;
      switch (event.type) {
        case 'message_start':
          if (isObj(event.message) && isObj(event.message.usage)) usage = event.message.usage;
          break;
        case 'content_block_start':
          if (typeof event.index !== 'number' || !isObj(event.content_block)) break;
          blocks[event.index] = { block: { ...(event.content_block as ContentBlock) }, json: '' };
          if (event.content_block.type === 'tool_use') {
            callsTools = true;
            if (isRecallUse(event.content_block as ContentBlock)) startedRecall = true;
          }
          if (!callsTools) shownHere = event.index + 1;
          break;
        case 'content_block_delta':
          if (typeof event.index === 'number' && isObj(event.delta)) applyDelta(blocks[event.index], event.delta);
          break;
        case 'content_block_stop': {
          const open = typeof event.index === 'number' ? blocks[event.index] : undefined;
          if (open && open.json !== '') open.block.input = parseObject(open.json) ?? {};
          break;
        }
        case 'message_delta':
          if (isObj(event.usage)) usage = { ...(usage ?? {}), ...event.usage };
          if (isObj(event.delta)) stopReason = event.delta.stop_reason;
          break;
        case 'message_stop':
          ended = true;
          break;
      }
    },
    callsTools: () => callsTools,
    startedRecall: () => startedRecall,
    ended: () => ended,
    replyCalls: (): ReplyCalls<AnthropicMessage> | null => replyCallsOf(blocks.filter(Boolean).map((b) => b.block)),
    usage: () => usage,
    closingEvents(finalUsage) {
      const stop = stopReason === 'tool_use' ? 'end_turn' : stopReason;
      const delta = { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: finalUsage ?? usage ?? {} };
      return [`event: message_delta\ndata: ${JSON.stringify(delta)}\n\n`, `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}\n\n`];
    },
    relay(data) {
      if (before === 0) return data;
      const event = parseObject(data);
      if (!event || event.type === 'message_start' || event.type === 'ping') return null;
      return typeof event.index === 'number' ? JSON.stringify(relayIndex(event)) : data;
    },
    shown: () => before + shownHere,
  };
  return reading;
}

function applyDelta(open: Assembling | undefined, delta: Obj): void {
  if (!open) return;
  const { block } = open;
  switch (delta.type) {
    case 'text_delta':
      block.text = `${typeof block.text === 'string' ? block.text : ''}${String(delta.text ?? '')}`;
      break;
    case 'thinking_delta':
      block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${String(delta.thinking ?? '')}`;
      break;
    case 'signature_delta':
      block.signature = delta.signature;
      break;
    case 'input_json_delta':
      open.json += String(delta.partial_json ?? '');
      break;
    case 'citations_delta':
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
      break;
  }
}

/** A message_delta's data with `usage` in its place; null for any other event. */
export function messagesEventWithUsage(data: string, usage: unknown): string | null {
  const event = parseObject(data);
  if (!event || event.type !== 'message_delta') return null;
  return JSON.stringify({ ...event, usage });
}
