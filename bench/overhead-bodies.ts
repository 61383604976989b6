// Deterministic chat request bodies for the overhead bench: a multi-turn conversation with a
// system prompt grown to a byte size, and one huge user message for the event-loop probe.
// A seed picks the content, so a new seed gives a body recap has never seen (cold caches).

import { prng } from './prng.js';

export const BENCH_MODEL = 'gpt-bench-1';

const WORDS = (
  'the a of to and in that is for it as with was on be by this are from at or have an they which one you were ' +
  'data request cache server token message budget summary history model stream upstream latency retry config deploy build ' +
  'function value result error handler queue worker database index migration schema client response header timeout'
).split(' ');

export function prose(rand: () => number, sentences: number): string {
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const n = 6 + Math.floor(rand() * 14);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)] as string);
    out.push(`${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`);
  }
  return out.join(' ');
}

export function codeBlock(rand: () => number, i: number): string {
  const lines = Array.from({ length: 4 + Math.floor(rand() * 8) }, (_, j) => `  const v${j} = await store.get('${i}:${Math.floor(rand() * 1e6)}');`);
  return ['```ts', `export async function step${i}(input: string): Promise<number> {`, ...lines, '  return input.length;', '}', '```'].join('\n');
}

type Message = { role: 'system' | 'user' | 'assistant'; content: string };

/** A conversation of user/assistant rounds after a system prompt, serialized to about `targetBytes`. */
export function conversationBody(targetBytes: number, seed: number, stream = false): Buffer {
  const rand = prng(seed);
  const messages: Message[] = [{ role: 'system', content: `You are a careful assistant for an operations team. ${prose(rand, 3)}` }];
  let bytes = 200;
  for (let i = 0; bytes < targetBytes; i++) {
    const user = prose(rand, 2 + Math.floor(rand() * 4));
    const assistant = `${prose(rand, 3 + Math.floor(rand() * 5))}\n\n${codeBlock(rand, i)}\n\n${prose(rand, 2)}`;
    messages.push({ role: 'user', content: user }, { role: 'assistant', content: assistant });
    bytes += user.length + assistant.length + 60;
  }
  messages.push({ role: 'user', content: prose(rand, 2) });
  return Buffer.from(JSON.stringify({ model: BENCH_MODEL, messages, ...(stream ? { stream: true } : {}) }));
}

/** The same conversation as a Responses API request: its system prompt as `instructions`, the rest as `input` items. */
export function responsesBody(targetBytes: number, seed: number, stream = false): Buffer {
  const { messages } = JSON.parse(conversationBody(targetBytes, seed).toString()) as { messages: Message[] };
  const [system, ...rest] = messages;
  const input = rest.map((m) => ({ type: 'message', role: m.role, content: [{ type: m.role === 'assistant' ? 'output_text' : 'input_text', text: m.content }] }));
  return Buffer.from(JSON.stringify({ model: BENCH_MODEL, instructions: system!.content, input, store: false, ...(stream ? { stream: true } : {}) }));
}

/** One user message of about `targetBytes` (~4 bytes per token), never seen before for a new seed. */
export function singleMessageBody(targetBytes: number, seed: number): Buffer {
  const rand = prng(seed);
  const parts: string[] = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    const p = prose(rand, 8);
    parts.push(p);
    bytes += p.length + 2;
  }
  return Buffer.from(JSON.stringify({ model: BENCH_MODEL, messages: [{ role: 'user', content: parts.join('\n\n') }] }));
}
