// The growth table's second pattern (overhead-growth.ts): a conversation as chats and agents grow
// it. Each request adds the assistant's reply to the request before and the user's next message;
// every third request the reply is a tool call instead, and the request adds it with the tool's
// JSON result. The history is grown the same way to a byte size. A pass starts again from the
// history with new turns of its own (a branch), so that a target sees many requests of one size.
import { codeBlock, prose } from './overhead-bodies.js';
import type { GrowthHistory } from './overhead-growth-bodies.js';
import { prng } from './prng.js';

const SYSTEM = 'You are the on-call assistant of the payments platform. Answer precisely, quote identifiers exactly, and use the tools to look things up.';
const FIRST_USER = 'Settlements for merchant mch_82731 have failed every night since v4.12.3 (batch BATCH-20931). Help me find out why.';
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Every this many requests the reply is a tool call, added with its JSON result. */
const TOOL_EVERY = 3;

function turnMaker(seed: number) {
  const rand = prng(seed);
  const n = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const assistant = (i: number) =>
    JSON.stringify({ role: 'assistant', content: rand() < 0.5 ? `${prose(rand, n(3, 8))}\n\n${codeBlock(rand, i)}\n\n${prose(rand, n(1, 4))}` : prose(rand, n(6, 20)) });
  const user = () => JSON.stringify({ role: 'user', content: prose(rand, n(1, 4)) });
  function toolPair(): string[] {
    const id = `call_${Array.from({ length: 24 }, () => ID_CHARS[n(0, ID_CHARS.length - 1)]).join('')}`;
    const args = JSON.stringify({ service: 'settlement', level: 'error', since_minutes: n(10, 600) });
    const call = { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'query_logs', arguments: args } }] };
    const entries = Array.from({ length: n(3, 14) }, () => ({
      ts: `2026-12-0${n(1, 4)}T0${n(0, 9)}:${n(10, 59)}:${n(10, 59)}Z`,
      level: 'error',
      batch: `BATCH-${n(20000, 29999)}`,
      merchant: `mch_${n(10000, 99999)}`,
      diff_minor: n(1, 99999),
      message: prose(rand, 1),
    }));
    return [JSON.stringify(call), JSON.stringify({ role: 'tool', tool_call_id: id, content: JSON.stringify({ entries, truncated: false }) })];
  }
  /** The messages request `i` adds: a reply and the user's next message, or a tool call and its result. */
  return (i: number): string[] => (i % TOOL_EVERY === TOOL_EVERY - 1 ? toolPair() : [assistant(i), user()]);
}

/** The history of about `targetBytes`: the system prompt, the first question, then turns. */
export function turnsHistory(model: string, targetBytes: number, seed: number): GrowthHistory {
  const messages = [JSON.stringify({ role: 'system', content: SYSTEM }), JSON.stringify({ role: 'user', content: FIRST_USER })];
  let bytes = messages.reduce((sum, m) => sum + m.length + 1, 0);
  const next = turnMaker(seed);
  for (let i = 0; bytes < targetBytes; i++) {
    for (const m of next(i)) {
      messages.push(m);
      bytes += m.length + 1;
    }
  }
  // The history ends as a request does: with the user's message (or a tool's result).
  return { model, messages, bytes };
}

/** The new messages of `requests` requests, in order; request k sends the first `perRequest[k]` of them. */
export function newTurns(requests: number, seed: number): { messages: string[]; upTo: number[] } {
  const next = turnMaker(seed);
  const messages: string[] = [];
  const upTo: number[] = [];
  for (let i = 0; i < requests; i++) {
    messages.push(...next(i));
    upTo.push(messages.length);
  }
  return { messages, upTo };
}
