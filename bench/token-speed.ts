import { createRequire } from 'node:module';
import type { TiktokenBPE } from 'js-tiktoken/lite';
import type { EncodingName } from '../src/tokens/encodings.js';
import { pretokenCounter } from '../src/tokens/pretoken-count.js';
import { agentScript } from './agent-task-script.js';
import { SEED, STEPS } from './agent-task-variants.js';

// How fast the tokenizer reads text of one kind, in MB of UTF-8 per second of CPU: the first pass
// (a new process: no piece counted before) and a pass over the same text again (what a
// long-running process reaches once a conversation's words, keys and identifier parts have been
// seen). CPU time, not the clock's: on a machine shared with other work a pass waits for a core,
// and that wait says nothing about the tokenizer.

const requireRanks = createRequire(import.meta.url);
const FIRST_PASSES = 3;
const REPEATS = 7;

export interface SpeedRow {
  text: string;
  encoding: EncodingName;
  mb: number;
  tokens: number;
  first_pass_mb_s: number;
  repeat_mb_s: number;
}

/** The agent-task bench's tool results (bench/agent-task-script.ts): code, search hits, test runs, JSON logs, listings. */
export function agentToolResults(): string[] {
  return agentScript(SEED, STEPS).flatMap((step) => step.calls.map((c) => c.result));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timed(count: (text: string) => number, texts: readonly string[]): { ms: number; tokens: number } {
  const start = process.cpuUsage();
  let tokens = 0;
  for (const text of texts) tokens += count(text);
  const cpu = process.cpuUsage(start);
  return { ms: (cpu.user + cpu.system) / 1000, tokens };
}

export function tokenizerSpeed(label: string, encoding: Exclude<EncodingName, 'estimate'>, texts: readonly string[]): SpeedRow {
  const bpe = requireRanks(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE;
  const mb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6;
  const first: number[] = [];
  let count = pretokenCounter(bpe);
  let tokens = 0;
  for (let run = 0; run < FIRST_PASSES; run++) {
    count = pretokenCounter(bpe);
    const pass = timed(count, texts);
    first.push(pass.ms);
    tokens = pass.tokens;
  }
  const repeat = Array.from({ length: REPEATS }, () => timed(count, texts).ms);
  const speed = (ms: number[]) => Math.round((mb / (median(ms) / 1000)) * 10) / 10;
  return { text: label, encoding, mb: Math.round(mb * 100) / 100, tokens, first_pass_mb_s: speed(first), repeat_mb_s: speed(repeat) };
}
