import fc from 'fast-check';
import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { describe, expect, it } from 'vitest';
import { pretokenCounter } from './pretoken-count.js';

const requireRanks = createRequire(import.meta.url);
const NAMES = ['o200k_base', 'cl100k_base'] as const;

const references = new Map<string, Tiktoken>();

// Each test builds its own counter: a fresh cache, so a count here is never one a previous test left.
function both(name: (typeof NAMES)[number]) {
  const bpe = requireRanks(`js-tiktoken/ranks/${name}`) as TiktokenBPE;
  let reference = references.get(name);
  if (reference === undefined) references.set(name, (reference = new Tiktoken(bpe)));
  const tiktoken = reference;
  return { count: pretokenCounter(bpe), expected: (text: string) => tiktoken.encode(text, [], []).length };
}

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));

/** What agents' tool results hold: log lines as JSON, listings, paths, code with ids, hashes and numbers. */
const toolResultLine = fc.oneof(
  fc
    .record({ ts: fc.date({ noInvalidDate: true }), level: fc.constantFrom('info', 'warn', 'error'), trace_id: hex(32), n: fc.integer() })
    .map((r) => JSON.stringify({ ...r, msg: `ledger mismatch for mch_${r.n} batch BATCH-${Math.abs(r.n) % 99999}` })),
  fc
    .tuple(fc.constantFrom('-rw-r--r--', 'drwxr-xr-x'), fc.nat(99999), hex(6))
    .map(([mode, size, id]) => `${mode}  ${String(size).padStart(6)}  2024-05-01  src/settlement/reconcile-${id}.ts`),
  fc.tuple(fc.nat(480), fc.nat(40)).map(([line, col]) => `     at settleBatch (src/settlement/reconcile.ts:${line}:${col})`),
  fc.tuple(fc.nat(99999), fc.nat(999999)).map(([i, led]) => `${String(i).padStart(5)}  const entry = await ledger.find('LED-${led}');\r`),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom("it's the USER'S call, they'LL see", '\t\t  \n\n   ', '我们今天讨论的问题', 'naïve café Ωmega 😀👍🏽', '12345678901234'),
);

/** Runs the cache never keeps (longer than its longest key) and runs that cross a token's length. */
const longRun = fc.tuple(fc.constantFrom('x', 'ab', ' ', '\n', '7', 'é', '日', '😀', '-_'), fc.integer({ min: 40, max: 200 })).map(([unit, times]) => unit.repeat(times));

const text = fc.array(fc.oneof({ arbitrary: toolResultLine, weight: 5 }, { arbitrary: longRun, weight: 1 }), { maxLength: 12 }).map((lines) => lines.join('\n'));

describe('pretokenCounter', () => {
  it.each(NAMES)('counts tool results, non-ASCII text and long runs exactly as js-tiktoken encodes them (%s)', (name) => {
    const { count, expected } = both(name);
    fc.assert(
      fc.property(text, (t) => count(t) === expected(t)),
      { numRuns: 200, seed: 20261205 },
    );
  });

  it.each(NAMES)('counts a text the same the first time and every time after, as its pieces are cached (%s)', (name) => {
    const { count, expected } = both(name);
    const sample = 'PASS test/settlement/reconcile.test.ts > settles BATCH-20931 for mch_82731 (12 ms)\n{"trace_id":"9f0c2e"} it\'s naïve 😀';
    const first = count(sample);
    expect(first).toBe(expected(sample));
    for (let i = 0; i < 3; i++) expect(count(sample)).toBe(first);
  });

  it.each(NAMES)('counts ASCII text exactly, its one- and two-character pieces too, the first time and again (%s)', (name) => {
    const { count, expected } = both(name);
    const ascii = fc.array(fc.integer({ min: 0, max: 0x7f }), { maxLength: 60 }).map((codes) => String.fromCharCode(...codes));
    fc.assert(
      fc.property(
        fc.oneof(
          toolResultLine.filter((t) => !/[\u0080-\uffff]/.test(t)),
          ascii,
        ),
        (t) => count(t) === expected(t) && count(t) === expected(t),
      ),
      { numRuns: 300, seed: 20261205 },
    );
  });

  it.each(NAMES)('stays exact while more distinct pieces of three and four characters pass than the cache holds (%s)', (name) => {
    const { count, expected } = both(name);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    // 17,576 distinct pieces of four characters (a blank and three letters), then as many of three (letters between digits).
    const words = [...letters].flatMap((a) => [...letters].flatMap((b) => [...letters].map((c) => ` ${a}${b}${c}`)));
    for (const text of [words.join(''), words.map((w) => w.slice(1)).join('7'), words.slice(0, 50).join('')]) {
      expect(count(text)).toBe(expected(text));
      expect(count(text)).toBe(expected(text));
    }
  });

  it.each(NAMES)('stays exact while more distinct pieces pass than the cache holds, and for what it kept before (%s)', (name) => {
    const { count, expected } = both(name);
    const early = 'settleBatch mch_82731 BATCH-20931 /settlement/reconcile.ts';
    expect(count(early)).toBe(expected(early));
    // 20,000 distinct words: several generations of the cache turn over.
    const words = Array.from({ length: 20_000 }, (_, i) => ` w${i.toString(36)}q${(i * 7919).toString(36)}`).join('');
    expect(count(words)).toBe(expected(words));
    expect(count(early)).toBe(expected(early));
    expect(count(words)).toBe(expected(words));
  });
});
