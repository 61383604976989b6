import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import type { RecordedRequest } from '../src/dev/fake-upstream.js';
import { logPart, TASK } from './helpers/agent-task.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';
import { chatToolsTokens, responsesPromptTokens } from './helpers/responses-tokens.js';

// Issue 21: POST /v1/responses with a stateless `input` array is compacted by the same engine as
// chat completions, through the official SDK's `client.responses.create`, streaming and not. A long
// tool-using conversation stays within budget; every function_call_output still follows its
// function_call (the fake refuses the request otherwise, as OpenAI does); `instructions` and the
// leading developer item reach the upstream unchanged, the summary right after them; reasoning
// travels with its step, its encrypted content untouched. Requests whose history the provider keeps
// (`previous_response_id`, `conversation`) or whose input is a string go through byte for byte.

const MODEL = 'gpt-test-responses';
const INSTRUCTIONS = 'You are an ops agent. Use read_log to read the deploy log part by part.';
const DEVELOPER = { role: 'developer', content: 'Answer in English.' };
const TOOLS = [
  {
    type: 'function' as const,
    name: 'read_log',
    description: 'Reads one part of the deploy log.',
    parameters: { type: 'object', properties: { part: { type: 'number' } }, required: ['part'] },
    strict: false,
  },
];

type Item = Record<string, any>;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, summarizerLatencyMs: 20 },
    models: [
      // Recall off: these budgets and bytes are compaction's alone (recall's own: test/recall-responses.test.ts).
      {
        match: MODEL,
        context_window: 16000,
        max_output_tokens: 1000,
        compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 400 },
        recall: { enabled: false },
      },
      // An unknown tokenizer: recap calibrates its estimate from the usage the upstream reports.
      { match: 'gpt-test-estimated', encoding: 'estimate', context_window: 16000, max_output_tokens: 1000 },
    ],
  });
  // The model's side: two parallel read_log calls every fifth step (with reasoning before them), else one.
  let step = 0;
  h.fake.setDefault((req) => {
    if (req.path !== '/v1/responses' || req.json?.model !== MODEL) return undefined;
    step++;
    const calls = (step % 5 === 0 ? [0, 1] : [0]).map((k) => ({ name: 'read_log', arguments: JSON.stringify({ part: step * 2 + k }) }));
    return { toolCalls: calls, ...(step % 5 === 0 ? { reasoning: { summary: [`Two parts at once, step ${step}.`], encrypted: true } } : {}) };
  });
});
afterAll(async () => h?.close());

function client(conversation: string, seen?: string[]): OpenAI {
  return new OpenAI({
    baseURL: `${h.recap.url}/v1`,
    apiKey: 'sk-test-key',
    maxRetries: 0,
    defaultHeaders: { 'x-conversation-id': conversation },
    ...(seen ? { fetch: async (url: RequestInfo | URL, init?: RequestInit) => (seen.push(String(init?.body)), fetch(url, init)) } : {}),
  });
}

/** Runs `steps` turns of the task; returns recap's headers of each turn. */
async function runTask(conversation: string, steps: number, stream: boolean): Promise<Headers[]> {
  const input: Item[] = [DEVELOPER, { role: 'user', content: TASK }];
  const headers: Headers[] = [];
  const c = client(conversation);
  for (let turn = 0; turn < steps; turn++) {
    const params = { model: MODEL, instructions: INSTRUCTIONS, input: input as never, tools: TOOLS, store: false, include: ['reasoning.encrypted_content' as const] };
    let output: Item[];
    if (stream) {
      const { data, response } = await c.responses.create({ ...params, stream: true }).withResponse();
      let completed: Item[] = [];
      for await (const event of data) if (event.type === 'response.completed') completed = event.response.output as Item[];
      headers.push(response.headers);
      output = completed;
    } else {
      const { data, response } = await c.responses.create(params).withResponse();
      headers.push(response.headers);
      output = data.output as Item[];
    }
    input.push(...output);
    for (const item of output)
      if (item.type === 'function_call') input.push({ type: 'function_call_output', call_id: item.call_id, output: logPart(JSON.parse(item.arguments).part % 8) });
  }
  return headers;
}

function expectWellFormed(sent: RecordedRequest): void {
  const body = sent.json as { instructions: string; input: Item[] };
  expect(body.instructions).toBe(INSTRUCTIONS);
  expect(body.input[0]).toEqual(DEVELOPER);
  expect(body.input.filter((i) => i.role === 'user' && i.content === TASK)).toHaveLength(1);
  const calls = new Set<string>();
  body.input.forEach((item, k) => {
    if (item.type === 'function_call') calls.add(item.call_id);
    if (item.type === 'function_call_output') expect(calls.has(item.call_id)).toBe(true);
    // Reasoning travels with the call it led to.
    if (item.type === 'reasoning') expect(body.input[k + 1]?.type).toBe('function_call');
  });
}

describe.each([false, true])('the Responses API through recap (stream: %s)', (stream) => {
  it('keeps a long tool-using conversation within budget, pinned items first, calls with their outputs', async () => {
    const before = h.fake.responsesRequests().length;
    const summariesBefore = h.fake.summarizerRequests().length;
    const headers = await runTask(`responses-${stream}`, 40, stream);
    const sent = h.fake.responsesRequests().slice(before);
    expect(sent).toHaveLength(40);
    const actions = headers.map((x) => x.get('x-recap-action'));
    expect(actions.filter((a) => a !== 'none').length).toBeGreaterThan(15);
    expect(actions).not.toContain('degraded');
    // Each forwarded request, recounted apart from recap, fits the budget that the rule gives:
    // window − the model's max_output_tokens − the tools as the chat route counts them.
    const tools = chatToolsTokens(INSTRUCTIONS, TOOLS);
    const budget = 16000 - 1000 - tools;
    sent.forEach((r, i) => {
      const prompt = responsesPromptTokens(r.json);
      expect(prompt).toBeLessThanOrEqual(budget);
      // Both headers count the tool definitions: the forwarded prompt with them, the window less the reply.
      expect(Number(headers[i]!.get('x-recap-tokens-out'))).toBe(prompt + tools);
      expect(Number(headers[i]!.get('x-recap-budget'))).toBe(16000 - 1000);
    });
    // The conversation outgrew the budget: what was forwarded is not what the client sent.
    expect(Math.max(...headers.map((x) => Number(x.get('x-recap-tokens-in'))))).toBeGreaterThan(budget);
    for (const r of sent) expectWellFormed(r);
    const summarized = sent.filter((r) => String((r.json.input as Item[])[1]?.content).startsWith(SUMMARY_MARKER));
    expect(summarized.length).toBeGreaterThan(0);
    for (const r of summarized) expect((r.json.input as Item[])[1]).toMatchObject({ type: 'message', role: 'system' });
    // Old outputs were cleared, in the Responses shape.
    expect(sent.some((r) => (r.json.input as Item[]).some((i) => i.type === 'function_call_output' && String(i.output).startsWith('[recap: tool result cleared')))).toBe(true);
    // Encrypted reasoning the client sent came through untouched (the fake refuses altered content).
    expect(sent.some((r) => (r.json.input as Item[]).some((i) => i.type === 'reasoning' && typeof i.encrypted_content === 'string'))).toBe(true);
    // Steps with reasoning were summarized, their reasoning never shown to the summarizer as text:
    // neither its summary nor its encrypted content.
    const reasoning = sent.flatMap((r) => (r.json.input as Item[]).flatMap((i, k, all) => (i.type === 'reasoning' ? [{ item: i, next: all[k + 1]! }] : [])));
    const summarizer = h.fake
      .summarizerRequests()
      .slice(summariesBefore)
      .map((r) => (r.json as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n'));
    expect(summarizer.length).toBeGreaterThan(0);
    expect(reasoning.some(({ next }) => summarizer.some((text) => text.includes(`read_log(${next.arguments})`)))).toBe(true);
    for (const { item } of reasoning) {
      for (const text of [...(item.summary as { text: string }[]).map((x) => x.text), item.encrypted_content as string]) {
        expect(summarizer.filter((shown) => shown.includes(text))).toEqual([]);
      }
    }
    // The conversation's records are the Responses route's own.
    const inspect = (query: string) => fetch(`${h.recap.url}/recap/v1/conversations/responses-${stream}${query}`, { headers: { authorization: 'Bearer sk-test-key' } });
    expect((await inspect('?route=responses')).status).toBe(200);
    expect((await inspect('')).status).toBe(404);
  });
});

describe('usage.input_tokens', () => {
  it('calibrates the estimate of a model with an unknown tokenizer, from JSON replies and typed streams', async () => {
    const ratio = async () => {
      const text = await (await fetch(`${h.recap.url}/metrics`)).text();
      return Number(
        text
          .split('\n')
          .find((l) => l.startsWith('recap_calibration_ratio{model="gpt-test-estimated"}'))
          ?.split(' ')
          .at(-1) ?? 'NaN',
      );
    };
    const reported = (factor: number) => h.fake.setOptions({ promptTokens: (req) => Math.ceil((factor * JSON.stringify(req.json.input).length) / 4) });
    try {
      const c = client('calibrated');
      const input = [{ role: 'user' as const, content: logPart(3) }];
      // A JSON reply reports more than recap estimated: the factor rises; a stream reports less: it falls.
      reported(1.8);
      await c.responses.create({ model: 'gpt-test-estimated', input });
      const afterJson = await ratio();
      expect(afterJson).toBeGreaterThan(1);
      reported(0.8);
      for await (const _event of await c.responses.create({ model: 'gpt-test-estimated', input, stream: true })) void _event;
      expect(await ratio()).toBeLessThan(afterJson);
    } finally {
      h.fake.setOptions({ promptTokens: undefined });
    }
  });
});

describe('requests recap leaves alone', () => {
  const big = Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: logPart(i % 8) }));
  it.each([
    ['names previous_response_id', { previous_response_id: 'resp_123', input: big }],
    ['names a conversation', { conversation: 'conv_123', input: big }],
    ['gives a plain string input', { input: big.map((m) => m.content).join('\n') }],
  ])('forwards a request that %s byte for byte', async (_name, extra) => {
    const seen: string[] = [];
    const { response } = await client('untouched', seen)
      .responses.create({ model: MODEL, instructions: INSTRUCTIONS, ...(extra as object) } as never)
      .withResponse();
    expect(response.headers.get('x-recap-action')).toBe('none');
    expect(h.fake.responsesRequests().at(-1)!.body).toBe(seen[0]);
  });
});
