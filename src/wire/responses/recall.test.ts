import { describe, expect, it } from 'vitest';
import { noPause } from '../../slicing/slicer.js';
import { readResponsesRequest } from './parse-request.js';
import { responsesRecall } from './recall.js';
import { responsesRecallRefusal } from './recall-offer.js';
import type { ResponseItem } from './types.js';

const recall = (callId: string, args = '{"query":"MARK-7"}') => ({
  id: `fc_${callId}`,
  type: 'function_call',
  status: 'completed',
  arguments: args,
  call_id: callId,
  name: 'recap_recall',
});
const clientCall = { id: 'fc_2', type: 'function_call', status: 'completed', arguments: '{}', call_id: 'c2', name: 'read_file' };
const encrypted = { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAA' };
const plain = { id: 'rs_1', type: 'reasoning', summary: [] };

describe('responsesRecall.replyCalls', () => {
  it('finds the recap_recall function calls and drops the client calls made beside them', () => {
    const found = responsesRecall.replyCalls({ output: [encrypted, clientCall, recall('c1')] });
    expect(found).toEqual({ calls: [{ id: 'c1', arguments: '{"query":"MARK-7"}' }], assistant: [encrypted, recall('c1')], assistantWith: expect.any(Function), dropped: 1 });
  });

  it('takes a recall call without a usable call_id for recap’s, and names it in the continuation (B25)', () => {
    for (const callId of [undefined, null, 7, '']) {
      const { call_id: _id, ...call } = recall('x');
      const found = responsesRecall.replyCalls({ output: [{ ...call, ...(callId === undefined ? {} : { call_id: callId }) }] })!;
      expect(found.calls).toHaveLength(1);
      const id = found.calls[0]!.id;
      expect(id).toMatch(/^call_recap_/);
      expect(found.assistant[0]!.call_id).toBe(id);
      expect(responsesRecall.resultItem(id, 'text').call_id).toBe(id);
    }
  });

  it('is null for a reply that makes no recall', () => {
    expect(responsesRecall.replyCalls({ output: [clientCall] })).toBeNull();
    expect(responsesRecall.replyCalls({ output: 'x' })).toBeNull();
  });

  it('leaves out a reasoning item it cannot give back, and the ids that would name it', () => {
    const found = responsesRecall.replyCalls({ output: [plain, recall('c1')] })!;
    const { id: _id, ...call } = recall('c1');
    expect(found.assistant).toEqual([call]);
    // Reasoning whose call was dropped would be stranded.
    expect(responsesRecall.replyCalls({ output: [recall('c1'), encrypted, clientCall] })!.assistant).toHaveLength(1);
  });
});

describe('responsesRecall.body and finalReply', () => {
  it('puts recap_recall after the client tools, changing nothing else', async () => {
    const raw = Buffer.from('{"model":"m","seed":9007199254740993,"input":[{"role":"user","content":"hi"}],"tools":[{"type":"function","name":"f"}]}');
    const parsed = await readResponsesRequest(raw, noPause);
    const items: ResponseItem[] = [
      { role: 'user', content: 'hi' },
      { type: 'function_call_output', call_id: 'c1', output: 'x' },
    ];
    const out = responsesRecall.body(parsed, items).toString();
    expect(out.startsWith('{"model":"m","seed":9007199254740993,"input":[')).toBe(true);
    expect(JSON.parse(out).tools.map((t: { name: string }) => t.name)).toEqual(['f', 'recap_recall']);
    expect(JSON.parse(out).input).toEqual(items);
  });

  it('sums usage into the final reply, and takes the calls out when the hop bound is reached', () => {
    const reply = { id: 'resp_1', output: [encrypted, { type: 'message', role: 'assistant', content: [] }, recall('c1')], usage: { input_tokens: 1 } };
    const raw = Buffer.from(JSON.stringify(reply));
    expect(JSON.parse(responsesRecall.finalReply(raw, reply, { input_tokens: 3 }, false).toString())).toEqual({ ...reply, usage: { input_tokens: 3 } });
    const stripped = JSON.parse(responsesRecall.finalReply(raw, reply, { input_tokens: 3 }, true).toString());
    expect(stripped.output.map((i: { type: string }) => i.type)).toEqual(['reasoning', 'message']);
    expect(responsesRecall.finalReply(raw, reply, undefined, false)).toBe(raw);
  });

  it('answers a call with a function_call_output item', () => {
    expect(responsesRecall.resultItem('c1', 'found')).toEqual({ type: 'function_call_output', call_id: 'c1', output: 'found' });
  });
});

describe('responsesRecall.readStream', () => {
  const data = (type: string, rest: object) => JSON.stringify({ type, sequence_number: 0, ...rest });

  it('calls tools from the first function call item, and reads the calls off the terminal event', () => {
    const reading = responsesRecall.readStream();
    reading.event(data('response.created', { response: { output: [] } }));
    reading.event(data('response.output_item.added', { output_index: 0, item: { type: 'message', role: 'assistant', content: [] } }));
    expect(reading.callsTools()).toBe(false);
    reading.event(data('response.output_item.added', { output_index: 1, item: { ...recall('c1'), arguments: '' } }));
    expect(reading.callsTools()).toBe(true);
    expect(reading.ended()).toBe(false);
    reading.event(data('response.completed', { response: { output: [recall('c1')], usage: { input_tokens: 5 } } }));
    expect(reading.ended()).toBe(true);
    expect(reading.replyCalls()?.calls).toEqual([{ id: 'c1', arguments: '{"query":"MARK-7"}' }]);
    expect(reading.usage()).toEqual({ input_tokens: 5 });
  });

  it('has not ended when the response failed', () => {
    const reading = responsesRecall.readStream();
    reading.event(data('response.failed', { response: { output: [recall('c1')] } }));
    expect(reading.ended()).toBe(false);
  });

  it('falls back to the items the done events carried', () => {
    const reading = responsesRecall.readStream();
    reading.event(data('response.output_item.done', { output_index: 0, item: recall('c9') }));
    expect(reading.replyCalls()?.calls).toEqual([{ id: 'c9', arguments: '{"query":"MARK-7"}' }]);
  });

  it('puts the summed usage into the terminal event only', () => {
    const completed = data('response.completed', { response: { id: 'r', usage: { input_tokens: 1 } } });
    expect(JSON.parse(responsesRecall.eventWithUsage(completed, { input_tokens: 9 })!).response).toEqual({ id: 'r', usage: { input_tokens: 9 } });
    expect(responsesRecall.eventWithUsage(data('response.output_text.delta', { delta: 'x' }), {})).toBeNull();
  });
});

describe('responsesRecallRefusal', () => {
  const model = { recall: { enabled: true }, compaction: { strategy: 'summarize', mode: 'enforce' } } as never;
  const body = (extra: object) => ({ model: 'm', input: [{ role: 'user', content: 'hi' }], ...extra });

  it('offers recall to a stateless request', () => {
    expect(responsesRecallRefusal(model, body({ store: false }))).toBeNull();
    expect(responsesRecallRefusal(model, body({ tool_choice: { type: 'function', name: 'recap_recall' } }))).toBeNull();
  });

  it('never to a request whose state the provider keeps, a background one, or one forcing a hosted tool', () => {
    expect(responsesRecallRefusal(model, body({ previous_response_id: 'resp_1' }))).toBe('stateful');
    expect(responsesRecallRefusal(model, body({ conversation: 'conv_1' }))).toBe('stateful');
    expect(responsesRecallRefusal(model, body({ background: true }))).toBe('stateful');
    expect(responsesRecallRefusal(model, body({ tool_choice: { type: 'file_search' } }))).toBe('tool_choice');
    expect(responsesRecallRefusal(model, body({ tool_choice: 'none' }))).toBe('tool_choice');
    expect(responsesRecallRefusal(model, body({ tool_choice: { type: 'function', name: 'read_file' } }))).toBe('tool_choice');
  });
});
