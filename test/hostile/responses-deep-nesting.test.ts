import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportJson } from '../../src/eval/report.js';
import { runEval } from '../../src/eval/run.js';
import { overBudgetHistory } from '../helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness, testConfig } from '../helpers/harness.js';

// The Responses route and `recap eval` under the nesting the chat route takes (deep-nesting.test.ts):
// JSON.parse reads any depth, JSON.stringify overflows the call stack after a few thousand levels.
// A body nested deep in a tool call's arguments or input, a tool output or an unknown item is one
// OpenAI may accept, so recap forwards it, compacting or not: never a 500, and what reaches the
// upstream carries the deep bytes as sent wherever the item is kept.

const PLAIN = 'gpt-test-plain';
const SMALL = 'gpt-test-small';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    // The fake's own usage estimate would walk the deep input: it reports a size-based figure instead.
    fake: { summarizerModel: SUMMARIZER, promptTokens: (r) => Math.ceil(r.body.length / 4) },
    extra: { background: { enabled: false } },
    models: [{ match: PLAIN }, smallModel()],
  });
});
afterAll(async () => h?.close());

/** Objects and arrays alternating, `depth` levels: about 4,110 were enough for a 500 before. */
function deep(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

const CASES: Record<string, (d: string) => string> = {
  'function_call.arguments': (d) => `{"type":"function_call","call_id":"c1","name":"f","arguments":${d}},{"type":"function_call_output","call_id":"c1","output":"done"}`,
  'custom_tool_call.input': (d) => `{"type":"custom_tool_call","call_id":"c2","name":"patch","input":${d}},{"type":"custom_tool_call_output","call_id":"c2","output":"ok"}`,
  'function_call_output.output': (d) => `{"type":"function_call","call_id":"c3","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c3","output":${d}}`,
  'an unknown item': (d) => `{"type":"mystery_item","payload":${d}}`,
  'a content part': (d) => `{"type":"message","role":"user","content":[{"type":"input_text","text":"look","x":${d}}]}`,
};

const history = overBudgetHistory().map((m) => JSON.stringify(m));

/** Where the deep item goes: after the first user message (evicted when compacting) or last (the newest step, always kept). */
function body(model: string, item: string, where: 'old' | 'recent'): string {
  const input = [...history];
  input.splice(where === 'old' ? 2 : input.length, 0, item);
  return `{"model":"${model}","store":false,"input":[${input.join(',')}]}`;
}

async function post(text: string) {
  const res = await fetch(`${h.recap.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-deep', 'x-conversation-id': `deep-${Math.random()}` },
    body: text,
  });
  return { status: res.status, action: res.headers.get('x-recap-action'), text: await res.text() };
}

describe.each([4_110, 20_000])('Responses input nested %i levels deep', (depth) => {
  const d = deep(depth);
  describe.each(Object.entries(CASES))('in %s', (_name, place) => {
    const item = place(d);

    it('is forwarded as sent without compaction', async () => {
      const text = body(PLAIN, item, 'recent');
      const res = await post(text);
      expect(res.status, res.text).toBe(200);
      expect(h.fake.responsesRequests().at(-1)!.body).toBe(text);
    });

    it.each(['old', 'recent'] as const)('is compacted when in the %s part, the deep bytes kept where forwarded', async (where) => {
      const summarizerCalls = h.fake.summarizerRequests().length;
      const res = await post(body(SMALL, item, where));
      expect(res.status, res.text).toBe(200);
      expect(res.action).toBe('compacted');
      expect(h.fake.summarizerRequests().length).toBe(summarizerCalls + 1);
      const forwarded = h.fake.responsesRequests().at(-1)!.body;
      if (where === 'recent') expect(forwarded).toContain(item);
      else expect(forwarded).not.toContain(d);
    });
  });
});

describe('recap eval on a conversation nested 20,000 levels deep', () => {
  it('reports instead of crashing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recap-deep-eval-'));
    try {
      const messages = overBudgetHistory().map((m) => JSON.stringify(m));
      messages.splice(
        2,
        0,
        `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":${deep(20_000)}}}]}`,
        '{"role":"tool","tool_call_id":"c1","content":"done"}',
      );
      const file = join(dir, 'deep.json');
      await writeFile(file, `{"model":"${SMALL}","messages":[${messages.join(',')}]}`);
      const report = reportJson(await runEval({ file, config: testConfig(h.fake, { models: [smallModel()] }), maxProbes: 4 }));
      expect(report.tokens_compacted as number).toBeLessThan(report.tokens_full as number);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
