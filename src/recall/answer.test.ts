import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../tokens/encodings.js';
import { answerRecall, parseRecallArguments } from './answer.js';
import { fitTokens } from './fit.js';
import type { Passage } from './left-out.js';

const tokenizer = getTokenizer('o200k_base');
const count = (t: string) => tokenizer.count(t);
const passages: Passage[] = [
  { handle: 'call_a', label: 'tool read_file result (cleared)', text: 'line one\nexport const MARKER = "KIWI-42";\nline three' },
  { handle: 'call_b', label: 'tool grep result (cleared)', text: 'src/parse.ts:10: function parse()\nsrc/lex.ts:4: function lex()' },
  { handle: 'item-3', label: 'user message (summarized)', text: 'Please look at the deploy script deploy/run.sh' },
];
const opts = { maxTokens: 500, count };

describe('answerRecall', () => {
  it('returns the passage of an exact handle whole, headed by its id', () => {
    const a = answerRecall('{"query":"anything","id":"call_a"}', passages, opts);
    expect(a.outcome).toBe('handle');
    expect(a.text).toContain('[id call_a · tool read_file result (cleared)]');
    expect(a.text).toContain('KIWI-42');
    expect(a.text).not.toContain('deploy');
  });

  it('finds passages by phrase or by terms, best first', () => {
    const a = answerRecall(JSON.stringify({ query: 'KIWI-42' }), passages, opts);
    expect(a.outcome).toBe('passages');
    expect(a.text).toContain('KIWI-42');
    expect(a.text).not.toContain('deploy');
    const b = answerRecall(JSON.stringify({ query: 'deploy/run.sh script' }), passages, opts);
    expect(b.text).toContain('[id item-3');
  });

  it('falls back to the query when the id is unknown, and says so', () => {
    const a = answerRecall(JSON.stringify({ query: 'parse.ts', id: 'call_zzz' }), passages, opts);
    expect(a.text).toContain('no earlier content has id "call_zzz"');
    expect(a.text).toContain('src/parse.ts:10');
  });

  it('says when nothing matches', () => {
    const a = answerRecall(JSON.stringify({ query: 'BANANA-99' }), passages, opts);
    expect(a).toEqual({ outcome: 'nothing', text: 'recap_recall: nothing earlier in this conversation matches "BANANA-99".' });
  });

  it('answers bad arguments with a result saying what is wrong', () => {
    for (const raw of [
      'not json',
      '[1]',
      '{"query":5}',
      '{"query":"x","id":7}',
      '{}',
      JSON.stringify({ query: 'x'.repeat(5000) }),
      JSON.stringify({ query: 'y'.repeat(1500) }),
      undefined,
    ]) {
      const a = answerRecall(raw, passages, opts);
      expect(a.outcome, String(raw).slice(0, 40)).toBe('bad_arguments');
      expect(a.text).toMatch(/^recap_recall: /);
    }
  });

  it('stays within the token bound, a long passage cut with a note', () => {
    const long: Passage[] = [{ handle: 'call_l', label: 'tool cat result (cleared)', text: `${'word '.repeat(5000)}END` }];
    const byId = answerRecall('{"query":"","id":"call_l"}', long, { maxTokens: 200, count });
    expect(count(byId.text)).toBeLessThanOrEqual(200);
    expect(byId.text).toContain('cut here');
    const byQuery = answerRecall('{"query":"word"}', long, { maxTokens: 200, count });
    expect(count(byQuery.text)).toBeLessThanOrEqual(200);
    expect(answerRecall('{"query":"word"}', long, { maxTokens: 10, count }).outcome).toBe('no_room');
  });

  it('cuts a long passage around its match, not from the head of its window', () => {
    const lines = Array.from({ length: 120 }, (_, i) => `-rw-r--r--  1 dev  staff  ${1000 + i * 7}  Mar  3 10:${String(i % 60).padStart(2, '0')}  module_${i}.py`);
    lines[97] = '-rw-r--r--  1 dev  staff  4242  Mar  3 10:37  helpers.py';
    const listing: Passage[] = [{ handle: 'call_ls', label: 'tool bash result (cleared)', text: `$ ls -la src\ntotal 480\n${lines.join('\n')}` }];
    for (const maxTokens of [120, 200, 400]) {
      const a = answerRecall('{"query":"helpers.py"}', listing, { maxTokens, count });
      expect(a.outcome).toBe('passages');
      expect(a.text).toContain('4242  Mar  3 10:37  helpers.py');
      expect(count(a.text)).toBeLessThanOrEqual(maxTokens);
    }
    const byId = answerRecall('{"query":"helpers.py","id":"call_ls"}', listing, { maxTokens: 150, count });
    expect(byId.outcome).toBe('handle');
    expect(byId.text).toContain('helpers.py');
  });

  it('prefers a match at word and identifier boundaries to one inside a longer word', () => {
    const texts: Passage[] = [
      { handle: 'call_1', label: 'tool grep result (cleared)', text: 'operations: embargo on the sidebar, barrier removed' },
      { handle: 'call_2', label: 'tool read_file result (cleared)', text: 'class Bar:\n    pass' },
      { handle: 'call_3', label: 'tool read_file result (cleared)', text: 'export class FooBar {}' },
    ];
    const a = answerRecall('{"query":"Bar"}', texts, { maxTokens: 500, count });
    expect(a.text.indexOf('[id call_2')).toBeGreaterThan(-1);
    expect(a.text.indexOf('[id call_2')).toBeLessThan(a.text.indexOf('[id call_1'));
    expect(a.text.indexOf('[id call_3')).toBeLessThan(a.text.indexOf('[id call_1'));
  });

  it('counts the parts not shown exactly, and says no room rather than passages when none could be shown', () => {
    const many: Passage[] = Array.from({ length: 6 }, (_, i) => ({ handle: `call_${i}`, label: 'tool grep result (cleared)', text: `alpha ${'filler '.repeat(40)}number ${i}` }));
    for (const maxTokens of [80, 150, 250, 400]) {
      const a = answerRecall('{"query":"alpha"}', many, { maxTokens, count });
      const shown = (a.text.match(/\[id call_/g) ?? []).length;
      const more = Number(a.text.match(/\[(\d+) more matching parts not shown/)?.[1] ?? 0);
      expect(a.outcome).toBe('passages');
      expect(shown).toBeGreaterThan(0);
      expect(shown + more).toBe(6);
    }
    const long = `${'q'.repeat(300)} alpha`;
    const none = answerRecall(JSON.stringify({ query: long }), [{ handle: 'call_x', label: 'l', text: `${long} ${'filler '.repeat(200)}` }], { maxTokens: 120, count });
    expect(none.outcome).toBe('no_room');
    expect(none.text).not.toContain('[id call_x');
  });

  it('reads an id alone', () => {
    expect(parseRecallArguments('{"id":"call_a"}')).toEqual({ query: '', id: 'call_a' });
  });
});

describe('fitTokens', () => {
  it('keeps a text that fits and cuts one that does not to the bound', () => {
    expect(fitTokens('short', 10, count)).toBe('short');
    const cut = fitTokens('alpha beta gamma delta '.repeat(100), 20, count);
    expect(count(cut)).toBeLessThanOrEqual(20);
    expect(count(cut)).toBeGreaterThan(15);
  });
});
