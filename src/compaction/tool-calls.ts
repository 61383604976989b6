import type { ChatMessage } from '../messages/types.js';
import { stringifyJson } from '../body/stringify.js';

// The calls an assistant message makes, read defensively: recap checks only `role` on incoming
// messages, and a malformed `tool_calls` must reach the upstream to be rejected there, not crash
// recap's planning or transcript on the way.

export interface CallInfo {
  kind: 'tool_call' | 'function_call';
  /** Null for a legacy `function_call`, which has no id. */
  id: string | null;
  name: string;
  arguments: string;
}

export function callsOf(m: ChatMessage): CallInfo[] {
  return [...eachCall(m)];
}

/** callsOf(m) one at a time: a message may carry 200k parallel calls. */
export function* eachCall(m: ChatMessage): Generator<CallInfo, void, undefined> {
  const slots = callSlots(m);
  for (let i = 0; i < slots; i++) {
    const call = callAt(m, i);
    if (call) yield call;
  }
}

/** Places for calls on the message: its tool calls, then a legacy function call (pre-tools clients). */
function callSlots(m: ChatMessage): number {
  return (Array.isArray(m.tool_calls) ? m.tool_calls.length : 0) + (hasLegacyCall(m) ? 1 : 0);
}

function hasLegacyCall(m: ChatMessage): boolean {
  return m.function_call !== null && typeof m.function_call === 'object';
}

/** The call in slot `i`; null for a malformed tool call. */
function callAt(m: ChatMessage, i: number): CallInfo | null {
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  if (i >= calls.length) return { kind: 'function_call', id: null, ...fn(m.function_call) };
  const tc = calls[i];
  if (tc === null || typeof tc !== 'object') return null;
  return { kind: 'tool_call', id: typeof tc.id === 'string' ? tc.id : null, ...fn(tc.function) };
}

/**
 * The arguments of a message's calls, reading only about `head` characters of them from the
 * first call on and `tail` from the last one back: a message with 200k parallel calls is not
 * turned into 200k call objects to scan 64 KB.
 */
export function boundedCallArguments(m: ChatMessage, head: number, tail: number): string[] {
  const slots = callSlots(m);
  const front: string[] = [];
  let frontChars = 0;
  let next = 0;
  for (; next < slots && frontChars <= head + tail; next++) {
    const call = callAt(m, next);
    if (call === null) continue;
    front.push(call.arguments);
    frontChars += call.arguments.length + 1;
  }
  if (next === slots) return front;
  const back: string[] = [];
  let backChars = 0;
  for (let i = slots - 1; i >= next && backChars <= tail; i--) {
    const call = callAt(m, i);
    if (call === null) continue;
    back.unshift(call.arguments);
    backChars += call.arguments.length + 1;
  }
  return [...front, ...back];
}

function fn(value: unknown): { name: string; arguments: string } {
  const f = (value ?? {}) as { name?: unknown; arguments?: unknown };
  return {
    name: typeof f.name === 'string' ? f.name : '?',
    // Arguments given as a JSON value rather than a string may nest deeper than JSON.stringify goes.
    arguments: typeof f.arguments === 'string' ? f.arguments : stringifyJson(f.arguments ?? ''),
  };
}
