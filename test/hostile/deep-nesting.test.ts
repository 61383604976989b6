import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from '../helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// JSON.parse takes any depth, JSON.stringify and recursive walks overflow the call stack after a
// few thousand levels. A body nested deep wherever recap walks it (a content part, tool-call
// arguments given as an object, a message's `name`, a top-level field, a tool's schema) is a body
// OpenAI may accept, so recap forwards it, compacting or not: never a 500, and never one after a
// summarizer call was paid for. What reaches the upstream carries the deep bytes as sent.

const PLAIN = 'gpt-test-plain';
const SMALL = 'gpt-test-small';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    // The fake's own usage estimate stringifies the messages, which a deep body overflows: it
    // reports a size-based figure instead.
    fake: { summarizerModel: SUMMARIZER, promptTokens: (r) => Math.ceil(r.body.length / 4) },
    extra: { background: { enabled: false } },
    models: [{ match: PLAIN }, smallModel()],
  });
});
afterAll(async () => h.close());

/** Objects and arrays alternating, `depth` levels: 2,623 was enough for a 500 before. */
function deep(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

type Placement = (d: string) => { message?: string; top?: string };
const CASES: Record<string, Placement> = {
  'a content part': (d) => ({ message: `{"role":"user","content":[{"type":"text","text":"look","x":${d}}]}` }),
  'an unknown content part type': (d) => ({ message: `{"role":"user","content":[{"type":"mystery","mystery":${d}},{"type":"text","text":"look"}]}` }),
  'tool-call arguments given as an object': (d) => ({
    message: `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":${d}}}]},{"role":"tool","tool_call_id":"call_1","content":"done"}`,
  }),
  'a message name': (d) => ({ message: `{"role":"user","name":${d},"content":"named"}` }),
  'an unknown message field': (d) => ({ message: `{"role":"user","content":"meta","metadata":${d}}` }),
  'a legacy function_call': (d) => ({ message: `{"role":"assistant","content":null,"function_call":{"name":"f","arguments":${d}}},{"role":"function","name":"f","content":"ok"}` }),
  'a top-level field': (d) => ({ top: `"metadata":${d}` }),
  'a tool schema': (d) => ({ top: `"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"p":${d}}}}}]` }),
  'a response_format schema': (d) => ({ top: `"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${d}}}` }),
};

const history = overBudgetHistory().map((m) => JSON.stringify(m));

/** Where the deep message goes: after the first user message (evicted when compacting) or last but one (kept). */
function body(model: string, placement: { message?: string; top?: string }, where: 'old' | 'recent'): string {
  const messages = [...history];
  if (placement.message) messages.splice(where === 'old' ? 2 : messages.length - 1, 0, placement.message);
  return `{"model":"${model}",${placement.top ? `${placement.top},` : ''}"messages":[${messages.join(',')}]}`;
}

async function post(text: string) {
  const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-deep', 'x-conversation-id': `deep-${Math.random()}` },
    body: text,
  });
  return { status: res.status, action: res.headers.get('x-recap-action'), text: await res.text() };
}

describe.each([2_623, 10_000])('nested %i levels deep', (depth) => {
  const d = deep(depth);
  describe.each(Object.entries(CASES))('in %s', (_name, place) => {
    const placement = place(d);

    it('is forwarded as sent without compaction', async () => {
      const text = body(PLAIN, placement, 'recent');
      const res = await post(text);
      expect(res.status, res.text).toBe(200);
      expect(h.fake.chatRequests().at(-1)!.body).toBe(text);
    });

    it.each(['old', 'recent'] as const)('is compacted when in the %s part, with one summarizer call and the deep bytes kept where forwarded', async (where) => {
      const summarizerCalls = h.fake.summarizerRequests().length;
      const res = await post(body(SMALL, placement, where));
      expect(res.status, res.text).toBe(200);
      expect(res.action).toBe('compacted');
      expect(h.fake.summarizerRequests().length).toBe(summarizerCalls + 1);
      const forwarded = h.fake.chatRequests().at(-1)!.body;
      // A top-level member as sent (recap_recall is appended to `tools`, after the client's own: hence its end left out).
      if (placement.top || where === 'recent') expect(forwarded).toContain(placement.top?.slice(0, -1) ?? placement.message);
      else expect(forwarded).not.toContain(d);
    });
  });
});
