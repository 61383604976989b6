import { describe, expect, it } from 'vitest';
import { OPENING_TASK_NOTICE, SHARED_PREFIX_MARKER } from '../compaction/prompt.js';
import { taskNoteOf } from '../compaction/task-note.js';
import { compactionSchema } from '../config/schema.js';
import type { ChatMessage } from '../messages/types.js';
import type { SummarizerCall } from '../summarizer/client.js';
import { getTokenizer } from '../tokens/encodings.js';
import { makeSummary, type SummaryRequest } from './make-summary.js';

// A summary that takes in the opening task (too large to stay verbatim: rule 1) says so, and every
// carry-over after it still says so, whichever strategy wrote it and whatever the summarizer kept.

const countText = (text: string) => getTokenizer('o200k_base').count(text);
const TASK: ChatMessage = { role: 'user', content: `Port the billing service to the new queue. ${'Requirement. '.repeat(40)}` };
const evicted: ChatMessage[] = [TASK, { role: 'assistant', content: 'Reading the code first.' }];

function request(
  strategy: 'summarize' | 'template',
  over: Partial<SummaryRequest>,
  reply = '## Goal\n- Port the billing service.',
): { req: SummaryRequest; calls: SummarizerCall[] } {
  const calls: SummarizerCall[] = [];
  const compaction = compactionSchema.parse({ strategy, summarizer: { model: 'sum' } });
  const req: SummaryRequest = {
    strategy,
    compaction,
    previous: null,
    evicted,
    evictedTokens: 600,
    countText,
    summarizer: async (call) => {
      calls.push(call);
      return { text: reply };
    },
    defaultUpstream: 'up',
    ...over,
  };
  return { req, calls };
}

describe('a summary that takes in the opening task', () => {
  it('starts with a note saying so, and the summarizer is told to keep the task in detail', async () => {
    const { req, calls } = request('summarize', { openingTask: { at: 0, tokens: 321 } });
    const made = await makeSummary(req);
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.text.split('\n')[0]).toBe(taskNoteOf(made.text));
    expect(made.text).toMatch(/^Note by recap: the opening task \(the conversation's first user message, 321 tokens\) is not kept verbatim; it is summarized here\.\n\n## Goal/);
    expect(calls[0]!.messages[1]!.content).toContain(OPENING_TASK_NOTICE);
  });

  it('keeps the note on the next carry-over though the summarizer dropped it, never twice, never sent to the summarizer', async () => {
    const first = await makeSummary(request('summarize', { openingTask: { at: 0, tokens: 321 } }).req);
    if (!first.ok) throw new Error('no summary');
    const { req, calls } = request('summarize', { previous: first.text, evicted: [{ role: 'user', content: 'continue' }] }, '## Goal\n- Porting.');
    const next = await makeSummary(req);
    if (!next.ok) throw new Error('no summary');
    expect(taskNoteOf(next.text)).toBe(taskNoteOf(first.text));
    expect(next.text.split(taskNoteOf(first.text)!).length).toBe(2);
    expect(String(calls[0]!.messages[1]!.content)).not.toContain('Note by recap: the opening task');
    expect(String(calls[0]!.messages[1]!.content)).not.toContain(OPENING_TASK_NOTICE);
  });

  it('is noted on a template rollup too, within its byte cap, and the rollup stays recognisable next time', async () => {
    const first = await makeSummary(
      request('template', { openingTask: { at: 0, tokens: 321 }, compaction: compactionSchema.parse({ strategy: 'template', template_max_bytes: 400 }) }).req,
    );
    if (!first.ok) throw new Error('no summary');
    expect(taskNoteOf(first.text)).not.toBeNull();
    expect(new TextEncoder().encode(first.text).length).toBeLessThanOrEqual(400);
    const next = await makeSummary(request('template', { previous: first.text, evicted: [{ role: 'user', content: 'continue' }] }).req);
    if (!next.ok) throw new Error('no summary');
    expect(next.text.match(/Note by recap: the opening task/g)).toHaveLength(1);
    expect(next.text.match(/\[Conversation summary so far\]/g)).toHaveLength(1);
    expect(next.text).toContain('user: continue');
  });

  it('is not noted when the task is not in the span nor noted before', async () => {
    const made = await makeSummary(request('summarize', {}).req);
    expect(made.ok && taskNoteOf(made.text)).toBeNull();
  });
});

describe('a summary on the conversation’s shared prefix', () => {
  it('is one call with the prefix built for its instruction and limit, on the conversation’s model, and its text is redacted before it is kept', async () => {
    const built: { instruction: string; maxTokens: number }[] = [];
    const prefix = {
      model: 'gpt-own',
      upstream: 'own',
      request: (instruction: string, maxTokens: number) => {
        built.push({ instruction, maxTokens });
        return { body: Buffer.from('{}'), path: '/chat/completions', readReply: () => ({ ok: false as const, reason: 'error' as const, detail: '' }), headers: {} };
      },
    };
    const leaked = '## Goal\n- Deploy with the key sk-live0123456789abcdefghijklmnop.';
    const { req, calls } = request(
      'summarize',
      { prefix, compaction: compactionSchema.parse({ strategy: 'summarize', summarizer: { shared_prefix: true }, ledger: false }) },
      leaked,
    );
    const made = await makeSummary(req);
    expect(made).toMatchObject({ ok: true, calls: 1 });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ model: 'gpt-own', upstream: 'own', messages: [] });
    expect(calls[0]!.prefix?.path).toBe('/chat/completions');
    expect(built[0]!.instruction.startsWith(SHARED_PREFIX_MARKER)).toBe(true);
    expect(built[0]!.maxTokens).toBe(1024);
    if (!made.ok) return;
    expect(made.text).not.toContain('sk-live0123456789');
    expect(made.text).toContain('[REDACTED:');
  });
});
