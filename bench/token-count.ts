import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChatMessage } from '../src/messages/types.js';
import { messageHash } from '../src/conversation/canonical.js';
import { createTokenCache } from '../src/tokens/cache.js';
import { createTokenCounter } from '../src/tokens/counter.js';
import { preloadEncodings, type EncodingName } from '../src/tokens/encodings.js';
import { prng } from './prng.js';
import { agentToolResults, tokenizerSpeed } from './token-speed.js';

// How much the per-message cache saves: counting a ~100k-token conversation cold (every message
// tokenized), warm (every message cached, as on the next request of the same conversation) and
// after appending one turn (the usual case: history cached, one new user message), in CPU time; and
// how fast the tokenizer reads two kinds of text (token-speed.ts).
// Run: npx tsx bench/token-count.ts

const RUNS = 7;
const TARGET_TOKENS = 100_000;
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'token-count.json');

const WORDS = (
  'the a of to and in that is for it as with was on be by this are from at or have an they which one you were ' +
  'data request cache server token message budget summary history model stream upstream latency retry config deploy build ' +
  'function value result error handler queue worker database index migration schema client response header timeout'
).split(' ');

function makeText(rand: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const sentence = () => {
    const n = 6 + Math.floor(rand() * 14);
    const words = Array.from({ length: n }, () => pick(WORDS));
    return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
  };
  const prose = (sentences: number) => Array.from({ length: sentences }, sentence).join(' ');
  const code = () => {
    const name = `${pick(WORDS)}${pick(WORDS).replace(/^./, (c) => c.toUpperCase())}`;
    const body = Array.from(
      { length: 4 + Math.floor(rand() * 8) },
      (_, i) => `  const v${i} = await ${pick(WORDS)}.${pick(WORDS)}(${Math.floor(rand() * 1000)}, '${pick(WORDS)}');`,
    );
    return ['```ts', `export async function ${name}(input: string): Promise<number> {`, ...body, '  return input.length;', '}', '```'].join('\n');
  };
  const json = () =>
    JSON.stringify(
      {
        results: Array.from({ length: 3 + Math.floor(rand() * 6) }, (_, i) => ({
          id: `row_${Math.floor(rand() * 1e9).toString(36)}`,
          rank: i,
          score: Math.round(rand() * 1e4) / 100,
          label: pick(WORDS),
          tags: [pick(WORDS), pick(WORDS)],
        })),
      },
      null,
      2,
    );
  return { prose, code, json };
}

/** One round: a question, a tool call and its JSON result, and an answer with prose and code. */
function round(rand: () => number, i: number): ChatMessage[] {
  const t = makeText(rand);
  const callId = `call_${i}`;
  return [
    { role: 'user', content: t.prose(2 + Math.floor(rand() * 4)) },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: callId, type: 'function', function: { name: 'search_records', arguments: JSON.stringify({ query: t.prose(1), limit: 10 }) } }],
    },
    { role: 'tool', tool_call_id: callId, content: t.json() },
    { role: 'assistant', content: `${t.prose(3 + Math.floor(rand() * 5))}\n\n${t.code()}\n\n${t.prose(2)}` },
  ];
}

function conversation(encoding: EncodingName): ChatMessage[] {
  const rand = prng(42);
  const counter = createTokenCounter({ encoding });
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a careful assistant for an operations team.' }];
  let tokens = 0;
  for (let i = 0; tokens < TARGET_TOKENS; i++) {
    const next = round(rand, i);
    tokens += counter.countMessages(next).total;
    messages.push(...next);
  }
  return messages;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Each request brings freshly parsed message objects; parsing is not part of counting. */
function freshCopy(messages: readonly ChatMessage[]): ChatMessage[] {
  return JSON.parse(JSON.stringify(messages)) as ChatMessage[];
}

/** The process's CPU time in ms: on a machine shared with other work, the clock would count waits for a core too. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function time(fn: () => unknown): number {
  const start = cpuMs();
  fn();
  return cpuMs() - start;
}

const limits = { cache_max_entries: 100_000, cache_max_bytes: 64 * 1024 * 1024 };

interface Timings {
  cold: number[];
  warm: number[];
  append: number[];
}

/**
 * Cold, warm and append-one-turn counts of `messages`. With `shareHashes`, the messages' canonical
 * hashes are computed outside the timer and passed in, as the request path can do since it needs
 * them for the hash chain anyway; without, counting hashes every message itself.
 */
function timeCounts(encoding: EncodingName, messages: readonly ChatMessage[], newTurns: readonly ChatMessage[], shareHashes: boolean): Timings {
  const hashesOf = (ms: readonly ChatMessage[]) => (shareHashes ? ms.map((m) => messageHash(m)) : undefined);
  const t: Timings = { cold: [], warm: [], append: [] };
  for (let run = 0; run < RUNS; run++) {
    const counter = createTokenCounter({ encoding, cache: createTokenCache(limits) });
    const copy = freshCopy(messages);
    const hashes = hashesOf(copy);
    t.cold.push(time(() => counter.countMessages(copy, hashes)));
  }
  // Warm and append-one-turn share one primed cache, as consecutive requests of a conversation do.
  const counter = createTokenCounter({ encoding, cache: createTokenCache(limits) });
  counter.countMessages(messages);
  for (const turn of newTurns) {
    const copy = freshCopy(messages);
    const hashes = hashesOf(copy);
    t.warm.push(time(() => counter.countMessages(copy, hashes)));
    const next = [...freshCopy(messages), turn];
    const nextHashes = hashesOf(next);
    t.append.push(time(() => counter.countMessages(next, nextHashes)));
  }
  return t;
}

async function timeColdAsync(encoding: EncodingName, messages: readonly ChatMessage[]): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const counter = createTokenCounter({ encoding, cache: createTokenCache(limits) });
    const copy = freshCopy(messages);
    const start = cpuMs();
    await counter.countMessagesAsync(copy);
    times.push(cpuMs() - start);
  }
  return times;
}

const ms = (xs: number[]) => Math.round(median(xs) * 1000) / 1000;
const speedup = (cold: number[], warm: number[]) => Math.round(median(cold) / median(warm));

async function benchEncoding(encoding: EncodingName) {
  const messages = conversation(encoding);
  const newTurns = Array.from({ length: RUNS }, (_, i) => round(prng(1000 + i), 10_000 + i)[0] as ChatMessage);
  const own = timeCounts(encoding, messages, newTurns, false);
  const shared = timeCounts(encoding, messages, newTurns, true);
  return {
    encoding,
    messages: messages.length,
    prompt_tokens: createTokenCounter({ encoding }).countMessages(messages).total,
    cold_ms: ms(own.cold),
    cold_async_ms: ms(await timeColdAsync(encoding, messages)),
    warm_ms: ms(own.warm),
    append_one_turn_ms: ms(own.append),
    warm_speedup: speedup(own.cold, own.warm),
    append_speedup: speedup(own.cold, own.append),
    shared_hashes_warm_ms: ms(shared.warm),
    shared_hashes_append_ms: ms(shared.append),
    shared_hashes_warm_speedup: speedup(shared.cold, shared.warm),
    shared_hashes_append_speedup: speedup(shared.cold, shared.append),
  };
}

export async function runTokenCountBench(): Promise<Record<string, unknown>> {
  const encodings: EncodingName[] = ['o200k_base', 'cl100k_base'];
  const loadStart = performance.now();
  preloadEncodings(encodings);
  const loadMs = Math.round(performance.now() - loadStart);
  const rows = [];
  for (const encoding of encodings) rows.push(await benchEncoding(encoding));
  const speed = [];
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    const texts = conversation(encoding).map((m) => (typeof m.content === 'string' ? m.content : (m.tool_calls?.[0]?.function.arguments ?? '')));
    speed.push(tokenizerSpeed('this conversation (prose, code, JSON)', encoding, texts));
    speed.push(tokenizerSpeed("agent-task's tool results (logs, listings, code with ids)", encoding, agentToolResults()));
  }
  const result = { bench: 'token-count', runs: RUNS, encodings_load_ms: loadMs, node: process.version, rows, tokenizer_speed: speed };
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
  console.table(result.rows);
  console.table(result.tokenizer_speed);
  console.log(`encodings loaded in ${String(result.encodings_load_ms)} ms; written to ${RESULTS_FILE}`);
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runTokenCountBench();
}
