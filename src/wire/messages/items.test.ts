import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { segment } from '../../compaction/units.js';
import { asChatMessage, clearedResults, describeAnthropicMessage, messagesWire } from './items.js';
import type { AnthropicMessage } from './types.js';

const claudeCode = JSON.parse(readFileSync(new URL('../../../test/fixtures/claude-code-first-request.json', import.meta.url), 'utf8')).body as { messages: AnthropicMessage[] };

const thinking = { type: 'thinking', thinking: 'Read the config first.', signature: 'sig==' };
const use = (id: string, name = 'Read') => ({ type: 'tool_use', id, name, input: { file_path: `/repo/${id}.ts` } });
const result = (id: string, content: unknown = `contents of ${id}`) => ({ type: 'tool_result', tool_use_id: id, content });

const kinds = (ms: AnthropicMessage[]) => ms.map((m) => describeAnthropicMessage(m).kind);

describe('Anthropic messages as neutral items', () => {
  it('reads what Claude Code sends: the task, then a system turn (an instruction), as captured from the CLI', () => {
    expect(kinds(claudeCode.messages)).toEqual(['user', 'instruction']);
    // The first user message's first block is a <system-reminder>, its last the user's prompt.
    const first = claudeCode.messages[0]!.content as unknown as { text: string }[];
    expect(first[0]!.text.startsWith('<system-reminder>')).toBe(true);
  });

  it('makes an assistant turn with its thinking and tool_use one step with the results message, parallel calls included', () => {
    const ms: AnthropicMessage[] = [
      { role: 'user', content: 'Fix the bug in src/pay.ts' },
      { role: 'assistant', content: [thinking, { type: 'text', text: 'Reading both.' }, use('toolu_1'), use('toolu_2')] },
      { role: 'user', content: [result('toolu_1'), result('toolu_2'), { type: 'text', text: '<system-reminder>todo list is empty</system-reminder>' }] },
      { role: 'assistant', content: [thinking, use('toolu_3', 'Bash')] },
      { role: 'user', content: [result('toolu_3')] },
      { role: 'user', content: 'Now also update the docs.' },
    ];
    expect(kinds(ms)).toEqual(['user', 'assistant', 'result', 'assistant', 'result', 'user']);
    expect(describeAnthropicMessage(ms[1]!).calls).toEqual([
      { id: 'toolu_1', name: 'Read' },
      { id: 'toolu_2', name: 'Read' },
    ]);
    const seg = segment(ms.map(describeAnthropicMessage), () => false);
    // A cut can fall only between these: no tool_use is ever parted from its tool_result.
    expect(seg.units.map((u) => [u.start, u.end, u.kind])).toEqual([
      [0, 1, 'head'],
      [1, 3, 'step'],
      [3, 5, 'step'],
      [5, 6, 'head'],
    ]);
  });

  it('keeps server tool blocks and unknown blocks in their assistant turn, never calls of the client', () => {
    const m: AnthropicMessage = {
      role: 'assistant',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'future_block', x: 1 },
        { type: 'text', text: 'Found it.' },
      ],
    };
    expect(describeAnthropicMessage(m)).toEqual({ kind: 'assistant', calls: [], resultOf: null });
  });

  it('shows the summarizer no thinking: a turn of only thinking is nothing to show, tool_use a call, results a tool message', () => {
    expect(asChatMessage({ role: 'assistant', content: [thinking, { type: 'redacted_thinking', data: 'abc' }] })).toBeNull();
    const shown = asChatMessage({ role: 'assistant', content: [thinking, { type: 'text', text: 'Reading.' }, use('toolu_9')] });
    expect(JSON.stringify(shown)).not.toContain('Read the config first');
    expect(shown).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Reading.' }],
      tool_calls: [{ id: 'toolu_9', function: { name: 'Read', arguments: '{"file_path":"/repo/toolu_9.ts"}' } }],
    });
    expect(
      asChatMessage({
        role: 'user',
        content: [
          result('toolu_9', [
            { type: 'text', text: 'line 1' },
            { type: 'image', source: {} },
          ]),
        ],
      }),
    ).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_9',
      content: 'line 1\n[image]',
    });
  });

  it('clears a results message by stubbing each tool_result, its text and cache_control kept', () => {
    const m: AnthropicMessage = {
      role: 'user',
      content: [
        { ...result('toolu_1', 'x'.repeat(5000)), is_error: false, cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'reminder' },
      ],
    };
    const cleared = clearedResults(m, 'Read', true);
    expect(cleared.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        is_error: false,
        cache_control: { type: 'ephemeral' },
        content:
          '[recap: tool result cleared to save context — tool Read, call toolu_1, 1250 tokens. Call the tool again if you need it. Recall it with recap_recall (id toolu_1).]',
      },
      { type: 'text', text: 'reminder' },
    ]);
    expect(m.content).toHaveLength(2);
    expect(JSON.stringify(m)).toContain('x'.repeat(5000));
  });

  it('puts the summary in a user message that it recognises as its own (an instruction, never a round)', () => {
    const summary = messagesWire.summaryItem('[recap:summary v1] Summary…');
    expect(summary).toEqual({ role: 'user', content: [{ type: 'text', text: '[recap:summary v1] Summary…' }] });
    expect(messagesWire.sealedTextOf(summary)).toBe('[recap:summary v1] Summary…');
    expect(describeAnthropicMessage(summary).kind).toBe('instruction');
    expect(messagesWire.sealedTextOf({ role: 'assistant', content: 'x' })).toBeNull();
  });
});
