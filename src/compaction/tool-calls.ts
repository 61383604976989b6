import type { ChatMessage } from '../chat/types.js';
import { stringifyJson } from '../json/stringify.js';

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
  const calls: CallInfo[] = [];
  for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    if (tc === null || typeof tc !== 'object') continue;
    calls.push({ kind: 'tool_call', id: typeof tc.id === 'string' ? tc.id : null, ...fn(tc.function) });
  }
  // Pre-tools clients send one `function_call` on the assistant message instead.
  if (m['function_call'] !== null && typeof m['function_call'] === 'object') {
    calls.push({ kind: 'function_call', id: null, ...fn(m['function_call']) });
  }
  return calls;
}

function fn(value: unknown): { name: string; arguments: string } {
  const f = (value ?? {}) as { name?: unknown; arguments?: unknown };
  return {
    name: typeof f.name === 'string' ? f.name : '?',
    // Arguments given as a JSON value rather than a string may nest deeper than JSON.stringify goes.
    arguments: typeof f.arguments === 'string' ? f.arguments : stringifyJson(f.arguments ?? ''),
  };
}
