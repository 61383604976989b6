import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPart } from '../helpers/agent-task.js';
import { type Harness, SUMMARIZER, startHarness } from '../helpers/harness.js';

// Rule 12 inside a cleared tool result: clearing replaces its `content` (chat) or `output`
// (Responses) and nothing else. The message's other fields reach the upstream as the client wrote
// them, numbers a JSON round trip would change included (9007199254740993 → ...992, 1e400 → null,
// -0 → 0), as do its spacing and key order.

const CHAT = 'gpt-test-clearing';
const RESPONSES = 'gpt-test-clearing-responses';
const STUB = '[recap: tool result cleared';
// Before and after the content, written by hand as no serializer would.
const BEFORE = '"seq": 9007199254740993, "score":1e400';
const AFTER = ' "ratio" : -0, "note":"caf\\u00e9"';
const PLACE = '"<content>"';

let h: Harness;
beforeAll(async () => {
  const model = (match: string) => ({
    match,
    context_window: 12000,
    max_output_tokens: 1000,
    compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 300 },
  });
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [model(CHAT), model(RESPONSES)] });
});
afterAll(async () => h?.close());

/** 24 steps of an agent task: each result's text with its content (or output) in the middle. */
function steps(result: (id: string, content: string) => string, call: (id: string) => string): { items: string[]; results: Map<string, string> } {
  const items: string[] = [];
  const results = new Map<string, string>();
  for (let step = 0; step < 24; step++) {
    const id = `call_${step}`;
    const content = JSON.stringify(logPart(step % 3));
    items.push(call(id), result(id, content));
    results.set(id, result(id, PLACE));
  }
  return { items, results };
}

async function post(path: string, body: string, conversation: string): Promise<void> {
  const res = await fetch(`${h.recap.url}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-cleared', 'x-conversation-id': conversation },
    body,
  });
  expect(res.status, await res.text()).toBe(200);
  expect(res.headers.get('x-recap-action')).toBe('compacted');
  expect(h.fake.summarizerRequests()).toHaveLength(0);
}

/** Every stubbed result in `forwarded` is the client's bytes of it with only the stub in place of the content. */
function expectOnlyStubsChanged(forwarded: string, stubs: { id: string; stub: string }[], results: Map<string, string>): void {
  expect(stubs.length).toBeGreaterThan(3);
  for (const { id, stub } of stubs) expect(forwarded).toContain(results.get(id)!.replace(PLACE, JSON.stringify(stub)));
}

describe('a cleared tool result keeps its other fields byte for byte', () => {
  it('on the chat route', async () => {
    const { items, results } = steps(
      (id, content) => `{"role":"tool", ${BEFORE}, "tool_call_id":"${id}", "content" : ${content},${AFTER}}`,
      (id) => `{"role":"assistant","content":null,"tool_calls":[{"id":"${id}","type":"function","function":{"name":"read_log","arguments":"{}"}}]}`,
    );
    const messages = ['{"role":"system","content":"You are an ops agent."}', '{"role":"user","content":"Read the deploy log and report."}', ...items];
    await post('/chat/completions', `{"model":"${CHAT}","messages":[${messages.join(',')}]}`, 'cleared-chat');
    const forwarded = h.fake.chatRequests().at(-1)!.body;
    const sent = (JSON.parse(forwarded) as { messages: { role: string; tool_call_id?: string; content: unknown }[] }).messages;
    const stubs = sent.filter((m) => m.role === 'tool' && String(m.content).startsWith(STUB)).map((m) => ({ id: m.tool_call_id!, stub: String(m.content) }));
    expectOnlyStubsChanged(forwarded, stubs, results);
  });

  it('on the Responses route', async () => {
    const { items, results } = steps(
      (id, content) => `{"type":"function_call_output", ${BEFORE}, "call_id":"${id}", "output" : ${content},${AFTER}}`,
      (id) => `{"type":"function_call","call_id":"${id}","name":"read_log","arguments":"{}"}`,
    );
    const input = ['{"role":"developer","content":"You are an ops agent."}', '{"role":"user","content":"Read the deploy log and report."}', ...items];
    await post('/responses', `{"model":"${RESPONSES}","store":false,"input":[${input.join(',')}]}`, 'cleared-responses');
    const forwarded = h.fake.responsesRequests().at(-1)!.body;
    const sent = (JSON.parse(forwarded) as { input: { type?: string; call_id?: string; output?: unknown }[] }).input;
    const stubs = sent.filter((i) => i.type === 'function_call_output' && String(i.output).startsWith(STUB)).map((i) => ({ id: i.call_id!, stub: String(i.output) }));
    expectOnlyStubsChanged(forwarded, stubs, results);
  });
});
