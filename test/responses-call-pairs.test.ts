import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { logPart } from './helpers/agent-task.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';

// docs/routes.md, "The Responses API": a `function_call`, `custom_tool_call` or any other `*_call` item opens a
// step with the `*_output` items of its `call_id`. Through compaction (summaries, cleared outputs)
// a call and its outputs are kept or dropped together: no forwarded `input` holds an output
// without its call, or a call without its outputs, whatever the kind of call.

const MODEL = 'gpt-test-responses';
const KINDS = ['custom_tool_call', 'computer_call', 'local_shell_call', 'function_call'];
type Item = Record<string, unknown>;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [{ match: MODEL, context_window: 12000, max_output_tokens: 1000, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 300 } }],
    extra: { background: { enabled: false } },
  });
});
afterAll(async () => h?.close());

/** Step `s`'s calls (two in parallel every third step), each kind in turn, and their outputs after them. */
function step(s: number): Item[] {
  const ids = s % 3 === 0 ? [`call_${s}_a`, `call_${s}_b`] : [`call_${s}_a`];
  const kind = KINDS[s % KINDS.length]!;
  const call = (id: string): Item => {
    if (kind === 'custom_tool_call') return { type: kind, call_id: id, name: 'apply_patch', input: `*** Begin Patch ${id}` };
    if (kind === 'function_call') return { type: kind, call_id: id, name: 'read_log', arguments: JSON.stringify({ part: s }) };
    if (kind === 'computer_call') return { type: kind, id: `cu_${id}`, call_id: id, action: { type: 'click', x: s, y: 1 }, pending_safety_checks: [], status: 'completed' };
    return { type: kind, id: `ls_${id}`, call_id: id, action: { type: 'exec', command: ['cat', `part-${s}.log`] }, status: 'completed' };
  };
  const output = (id: string): Item => ({ type: `${kind}_output`, call_id: id, output: logPart(s) });
  return [...ids.map(call), ...ids.map(output)];
}

/** The call ids whose call or outputs are in `input` without the other, or an output before its call. */
function splitPairs(input: Item[]): string[] {
  const calls = new Map<string, string>();
  const answered = new Set<string>();
  const split: string[] = [];
  for (const item of input) {
    const type = String(item.type);
    const id = String(item.call_id);
    if (type.endsWith('_call')) calls.set(id, type);
    else if (type.endsWith('_call_output')) {
      if (calls.get(id) !== type.slice(0, -'_output'.length)) split.push(id);
      answered.add(id);
    }
  }
  for (const id of calls.keys()) if (!answered.has(id)) split.push(id);
  return split;
}

describe('tool calls of every kind, through compaction', () => {
  it('reach the upstream with their outputs, or not at all', async () => {
    const client = new OpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: 'sk-test-key', maxRetries: 0, defaultHeaders: { 'x-conversation-id': 'call-pairs' } });
    const input: Item[] = [{ role: 'user', content: 'Patch the deploy and read its logs.' }];
    const before = h.fake.responsesRequests().length;
    const actions: (string | null)[] = [];
    for (let s = 1; s <= 24; s++) {
      input.push(...step(s));
      const { data, response } = await client.responses.create({ model: MODEL, input: input as never, store: false }).withResponse();
      actions.push(response.headers.get('x-recap-action'));
      input.push(...(data.output as unknown as Item[]));
    }
    const forwarded = h.fake
      .responsesRequests()
      .slice(before)
      .map((r) => r.json.input as Item[]);
    expect(forwarded).toHaveLength(24);
    expect(actions).toContain('compacted');
    expect(actions).not.toContain('degraded');
    for (const items of forwarded) expect(splitPairs(items)).toEqual([]);
    // Every kind of call was kept next to a summary, and dropped from the last request.
    const summarized = forwarded.filter((items) => items.some((i) => String(i.content).startsWith(SUMMARY_MARKER)));
    for (const kind of KINDS) {
      expect(summarized.some((items) => items.some((i) => i.type === kind))).toBe(true);
      expect(forwarded.at(-1)!.filter((i) => i.type === kind).length).toBeLessThan(input.filter((i) => i.type === kind).length);
    }
  });
});
