import { describe, expect, it } from 'vitest';
import { summaryCodec } from '../../compaction/summary-message.js';
import { jsonItemHash } from '../../conversation/canonical.js';
import { analyze } from '../../pipeline/analyze.js';
import { asChatMessage, describeResponseItem, responsesWire } from './items.js';
import type { ResponseItem } from './types.js';

// Responses items as the engine sees them (docs/routes.md, "The Responses API"): messages by role, a
// `function_call`, `custom_tool_call` or any other `*_call` opens a step with the `*_output` items
// of its `call_id`, reasoning travels with the step it precedes and is never shown as text.

const call = (type: string, call_id: string, extra: Record<string, unknown> = {}): ResponseItem => ({ type, call_id, ...extra });
const output = (type: string, call_id: string, out: unknown = 'done'): ResponseItem => ({ type, call_id, output: out });

describe('describeResponseItem', () => {
  it('reads messages by role, with or without `type`', () => {
    expect(describeResponseItem({ role: 'system', content: 'x' }).kind).toBe('instruction');
    expect(describeResponseItem({ type: 'message', role: 'developer', content: 'x' }).kind).toBe('instruction');
    expect(describeResponseItem({ role: 'user', content: 'x' }).kind).toBe('user');
    expect(describeResponseItem({ type: 'message', role: 'assistant', content: [] }).kind).toBe('assistant');
    expect(describeResponseItem({ type: 'message', role: 'critic', content: 'x' }).kind).toBe('other');
  });

  it.each([
    ['function_call', 'function_call_output', { name: 'read_log', arguments: '{}' }, 'read_log'],
    ['custom_tool_call', 'custom_tool_call_output', { name: 'apply_patch', input: '*** Begin Patch' }, 'apply_patch'],
    ['computer_call', 'computer_call_output', { action: { type: 'click', x: 1, y: 2 } }, 'computer_call'],
    ['local_shell_call', 'local_shell_call_output', { action: { type: 'exec', command: ['ls'] } }, 'local_shell_call'],
  ])('pairs a %s with its %s by call_id, naming the tool', (callType, outputType, extra, name) => {
    expect(describeResponseItem(call(callType, 'c1', extra))).toEqual({ kind: 'assistant', calls: [{ id: 'c1', name }], resultOf: null });
    expect(describeResponseItem(output(outputType, 'c1'))).toEqual({ kind: 'result', calls: [], resultOf: 'c1' });
  });

  it('pairs an MCP approval request with its response by the request id', () => {
    expect(describeResponseItem({ type: 'mcp_approval_request', id: 'apr_1', name: 'deploy', server_label: 'ops' })).toEqual({
      kind: 'assistant',
      calls: [{ id: 'apr_1', name: 'deploy' }],
      resultOf: null,
    });
    expect(describeResponseItem({ type: 'mcp_approval_response', approval_request_id: 'apr_1', approve: true })).toEqual({ kind: 'result', calls: [], resultOf: 'apr_1' });
  });

  it('takes reasoning for assistant output without calls, and an unknown item for a unit of its own', () => {
    expect(describeResponseItem({ type: 'reasoning', id: 'rs_1', summary: [] })).toEqual({ kind: 'assistant', calls: [], resultOf: null });
    expect(describeResponseItem({ type: 'item_reference', id: 'msg_1' }).kind).toBe('other');
    expect(describeResponseItem({ type: 'web_search_call', id: 'ws_1', status: 'completed' })).toEqual({ kind: 'assistant', calls: [], resultOf: null });
  });
});

describe('steps of Responses items', () => {
  it('groups reasoning, parallel calls of any type and their outputs (in any order) into one step', () => {
    const items: ResponseItem[] = [
      { role: 'developer', content: 'Answer in English.' },
      { role: 'user', content: 'Fix the build.' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
      call('function_call', 'a', { name: 'read_log', arguments: '{}' }),
      call('custom_tool_call', 'b', { name: 'apply_patch', input: 'patch' }),
      output('custom_tool_call_output', 'b'),
      output('function_call_output', 'a'),
      { type: 'reasoning', id: 'rs_2', summary: [] },
      call('local_shell_call', 'c', { action: { type: 'exec', command: ['make'] } }),
      output('local_shell_call_output', 'c'),
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] },
      { role: 'user', content: 'Thanks.' },
    ];
    const a = analyze({
      items,
      tokens: items.map(() => 10),
      hashes: items.map(jsonItemHash),
      primingTokens: 3,
      countItem: () => 10,
      wire: responsesWire,
      codec: summaryCodec('s'.repeat(32), 'tenant'),
    });
    expect(a.pinned).toEqual([items[0]]);
    // After the pinned developer item: the task, the first step (reasoning, two calls, both
    // outputs), the second (reasoning, a shell call, its output), the reply, the next user message.
    expect(a.seg.units.map((u) => [u.kind, u.start, u.end])).toEqual([
      ['head', 0, 1],
      ['step', 1, 6],
      ['step', 6, 9],
      ['step', 9, 10],
      ['head', 10, 11],
    ]);
  });
});

describe('asChatMessage', () => {
  it('shows a function call and a custom tool call as an assistant tool call, their outputs as tool results', () => {
    expect(asChatMessage(call('function_call', 'c1', { name: 'read_log', arguments: '{"part":3}' }))).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_log', arguments: '{"part":3}' } }],
    });
    expect(asChatMessage(call('custom_tool_call', 'c2', { name: 'apply_patch', input: 'patch text' })).tool_calls).toEqual([
      { id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: 'patch text' } },
    ]);
    expect(asChatMessage(output('function_call_output', 'c1', 'log text'))).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'log text' });
    expect(asChatMessage(output('custom_tool_call_output', 'c2', [{ type: 'input_text', text: 'ok' }]))).toEqual({
      role: 'tool',
      tool_call_id: 'c2',
      content: [{ type: 'text', text: 'ok' }],
    });
  });

  it('shows another call by its type with its other fields as arguments, and an MCP approval as its answer', () => {
    const shell = asChatMessage(call('local_shell_call', 'c3', { id: 'ls_1', status: 'completed', action: { type: 'exec', command: ['ls', '-la'] } }));
    expect(shell.tool_calls).toEqual([{ id: 'c3', type: 'function', function: { name: 'local_shell_call', arguments: '{"action":{"type":"exec","command":["ls","-la"]}}' } }]);
    expect(asChatMessage({ type: 'mcp_approval_response', approval_request_id: 'apr_1', approve: false })).toEqual({ role: 'tool', tool_call_id: 'apr_1', content: 'false' });
  });

  it('reads input and output parts as chat parts', () => {
    const m = asChatMessage({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'Look:' },
        { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'high' },
        { type: 'input_file', file_id: 'f' },
        { type: 'refusal', refusal: 'no' },
      ],
    });
    expect(m.content).toEqual([
      { type: 'text', text: 'Look:' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } },
      { type: 'file' },
      { type: 'text', text: 'no' },
    ]);
  });
});

describe('responsesWire', () => {
  it('never shows reasoning to the summarizer, its summary and encrypted content included', () => {
    const reasoning: ResponseItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'secret plan' }], encrypted_content: 'gAAAAsecret' };
    expect(responsesWire.asChat(reasoning)).toBeNull();
    expect(responsesWire.asChat({ role: 'user', content: 'hi' })).toEqual({ role: 'user', content: 'hi' });
  });

  it('stubs a text output, keeps every other field, and leaves an output it cannot stub alone', () => {
    const item = { type: 'function_call_output', id: 'fco_1', call_id: 'c1', output: 'x'.repeat(5000), status: 'completed' };
    expect(responsesWire.cleared(item, 'read_log', false)).toEqual({
      ...item,
      output: '[recap: tool result cleared to save context — tool read_log, call c1, 1250 tokens. Call the tool again if you need it.]',
    });
    expect(responsesWire.cleared(output('custom_tool_call_output', 'c2', [{ type: 'input_text', text: 'long' }]), 'apply_patch', false).output).toMatch(
      /^\[recap: tool result cleared/,
    );
    const screenshot = output('computer_call_output', 'c3', { type: 'computer_screenshot', image_url: 'data:image/png;base64,AAAA' });
    expect(responsesWire.cleared(screenshot, 'computer_call', false)).toBe(screenshot);
  });

  it('writes the summary as one system message item and reads recap’s seal back from it', () => {
    const codec = summaryCodec('s'.repeat(32), 'tenant');
    const item = responsesWire.summaryItem(codec.seal('Earlier: the build broke.'));
    expect(item).toEqual({ type: 'message', role: 'system', content: codec.seal('Earlier: the build broke.') });
    expect(codec.unseal(responsesWire.sealedTextOf(item)!)).toBe('Earlier: the build broke.');
    expect(
      responsesWire.sealedTextOf({
        role: 'system',
        content: [
          { type: 'input_text', text: 'a' },
          { type: 'input_text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(responsesWire.sealedTextOf({ role: 'developer', content: codec.seal('x') })).toBeNull();
    expect(responsesWire.sealedTextOf(call('function_call', 'c1'))).toBeNull();
  });
});

const item = (v: object) => v as unknown as ResponseItem;

describe('Responses items with a type that is not a string', () => {
  it('are items of no kind recap knows, read without throwing', () => {
    for (const type of [5, ['function_call'], { toString: 1 }]) {
      expect(describeResponseItem(item({ type, call_id: 'c1', output: 'x' }))).toEqual({ kind: 'other', calls: [], resultOf: null });
      expect(asChatMessage(item({ type, role: 'user', content: 'hi' }))).toMatchObject({ role: 'assistant' });
    }
  });

  it('show a content part of such a type as an unknown part', () => {
    expect(asChatMessage(item({ type: 'message', role: 'user', content: [{ type: { toString: 1 } }] }))).toEqual({ role: 'user', content: [{ type: 'unknown' }] });
    expect(responsesWire.sealedTextOf(item({ type: 'message', role: 'system', content: [{ type: 'text', text: 5 }] }))).toBe('');
  });
});
