import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { chunkTranscript, summarizeInChunks } from './chunks.js';
import { INPUT_NOTICE, OPENING_TASK_NOTICE } from './prompt.js';

const chars = (text: string): number => text.length;

describe('chunkTranscript', () => {
  it('keeps everything in one chunk when it fits', async () => {
    expect(await chunkTranscript(['USER: a', 'ASSISTANT: b'], 100, chars)).toEqual(['USER: a\nASSISTANT: b']);
  });

  it('packs whole entries in order without passing the bound', async () => {
    const entries = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40), 'd'.repeat(10)];
    const chunks = await chunkTranscript(entries, 100, chars);
    expect(chunks).toEqual([`${'a'.repeat(40)}\n${'b'.repeat(40)}`, `${'c'.repeat(40)}\n${'d'.repeat(10)}`]);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(100);
  });

  it('splits an entry bigger than a chunk, losing nothing and keeping order', async () => {
    const big = Array.from({ length: 500 }, (_, i) => String(i % 10)).join('');
    const chunks = await chunkTranscript(['USER: small', big], 100, chars);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(100);
    expect(chunks.join('\n').replaceAll('\n', '')).toBe(`USER: small${big}`);
  });

  it('splits a long entry at its counting cuts, pausing between pieces, in order and within the bound', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i} of a pasted log`).join('\n');
    let pauses = 0;
    const chunks = await chunkTranscript(['USER: small', big], 500, chars, () => {
      pauses++;
      return undefined;
    });
    expect(pauses).toBeGreaterThan(10);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(500);
    expect(chunks.join('\n').replaceAll('\n', '')).toBe(`USER: small${big}`.replaceAll('\n', ''));
  });

  it('never splits an emoji', async () => {
    const chunks = await chunkTranscript(['😀'.repeat(50)], 10, chars);
    expect(chunks.join('').replaceAll('\n', '')).toBe('😀'.repeat(50));
    for (const c of chunks) expect(c.replaceAll('\n', '').length % 2).toBe(0);
  });

  it('returns no chunk for no entries', async () => {
    expect(await chunkTranscript([], 100, chars)).toEqual([]);
  });
});

describe('summarizeInChunks', () => {
  const userText = (messages: ChatMessage[]): string => messages[1]!.content as string;

  it('tells only the first call that its transcript holds the opening task', async () => {
    const seen: string[] = [];
    await summarizeInChunks(['USER: the task', 'USER: continue'], null, async (messages) => (seen.push(userText(messages)), 'S'), { maxTokens: 100, openingTask: true });
    expect(seen[0]).toContain(OPENING_TASK_NOTICE);
    expect(seen[1]).not.toContain(OPENING_TASK_NOTICE);
  });

  it('threads each result into the next call as the previous summary', async () => {
    const seen: string[] = [];
    const result = await summarizeInChunks(
      ['USER: one', 'USER: two', 'USER: three'],
      'S0',
      async (messages) => {
        seen.push(userText(messages));
        return `S${seen.length}`;
      },
      { maxTokens: 100 },
    );
    expect(result).toBe('S3');
    expect(seen[0]).toContain('<previous_summary>\nS0\n</previous_summary>');
    expect(seen[0]).toContain('USER: one');
    expect(seen[1]).toContain('<previous_summary>\nS1\n</previous_summary>');
    expect(seen[2]).toContain('<previous_summary>\nS2\n</previous_summary>');
    expect(seen[2]).toContain('USER: three');
  });

  it('stops and returns empty when a chunk comes back empty', async () => {
    let calls = 0;
    const result = await summarizeInChunks(['a', 'b', 'c'], null, async () => (++calls === 2 ? '  ' : 'S'), { maxTokens: 100 });
    expect(result).toBe('');
    expect(calls).toBe(2);
  });

  it('passes the prompt override and limit through', async () => {
    let system = '';
    await summarizeInChunks(['a'], null, async (messages) => ((system = messages[0]!.content as string), 'S'), {
      maxTokens: 42,
      promptOverride: 'Custom.',
    });
    expect(system).toBe(`Custom.\n\n${INPUT_NOTICE}\n\nLength limit: at most 42 tokens.`);
  });
});
