import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RecordedRequest } from '../src/dev/fake-upstream.js';
import { type Harness, type ModelOptions, SUMMARIZER, startHarness } from './helpers/harness.js';

// Issue 25 on the Responses route (rule 13), through the official SDK (`responses.create`,
// `responses.stream`) and the Agents SDK's Responses model: a long tool-using task whose early
// results recap cleared and summarized; the fake model, asked about a marker from an early result,
// calls recap_recall (by query, or scripted by handle), recap answers it from the request's own
// input and sends the continuation; the client gets only the final response, with the marker and
// the usage of both upstream calls, and never a recap_recall item. A reply without a recall
// reaches the client byte for byte; another conversation never recalls this one's content.

setTracingDisabled(true);

const MODEL = 'gpt-test-recall';
const MODEL_OFF = 'gpt-test-recall-off';
const MARKER = 'MARK-7731-QX';
const QUESTION = 'Earlier in this conversation an identifier beginning with "MARK-77" came up. What was it exactly?';
const INSTRUCTIONS = 'You are an ops agent. Use read_log to read the deploy log part by part.';
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

/** A part of the log: ~1.5 KB of lines, the marker in part 2 only (when `marker`). */
function part(k: number, marker: boolean): string {
  const lines = Array.from(
    { length: 14 },
    (_, i) => `2024-11-02T10:${String(i).padStart(2, '0')}:00Z part ${k} line ${i}: pod web-${k}-${i % 7} restarted, exit code ${137 + (i % 3)}`,
  );
  if (marker && k === 2) lines.splice(7, 0, `part 2 line 7: the deploy key is ${MARKER}, rotated after the incident.`);
  return lines.join('\n');
}

/** The task so far: 24 read_log steps, then the question. */
function history(marker = true): Item[] {
  const steps = Array.from({ length: 24 }, (_, k) => [
    { type: 'function_call', call_id: `call_${k}`, name: 'read_log', arguments: JSON.stringify({ part: k }) },
    { type: 'function_call_output', call_id: `call_${k}`, output: part(k, marker) },
  ]).flat();
  return [{ role: 'user', content: 'Investigate incident INC-4411: read every part of the deploy log and report the root cause.' }, ...steps, { role: 'user', content: QUESTION }];
}

const compaction = { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 300, ledger: false, trigger_ratio: 0.8, target_ratio: 0.5 };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, lossySummarizer: true },
    models: [
      { match: MODEL, context_window: 8000, max_output_tokens: 500, compaction },
      { match: MODEL_OFF, context_window: 8000, max_output_tokens: 500, compaction, recall: { enabled: false } } as ModelOptions,
    ],
  });
});
beforeEach(() => h.fake.reset());
afterAll(async () => h?.close());

const params = (input: Item[], model = MODEL) => ({ model, instructions: INSTRUCTIONS, input: input as never, tools: TOOLS, store: false });
const upstream = (): RecordedRequest[] => h.fake.responsesRequests();
const sentJson = (r: RecordedRequest): any => JSON.parse(h.fake.sentBytes(r).toString());

/** The usage of a streamed reply the fake sent: its `response.completed` event's. */
function streamedUsage(r: RecordedRequest): any {
  const frame = h.fake
    .sentBytes(r)
    .toString()
    .split('\n\n')
    .find((f) => f.startsWith('event: response.completed\n'))!;
  return JSON.parse(frame.split('\ndata: ')[1]!).response.usage;
}

function streamedId(r: RecordedRequest): string {
  return JSON.parse(h.fake.sentBytes(r).toString().split('\n\n')[0]!.split('\ndata: ')[1]!).response.id;
}

function sum(usages: any[]): any {
  return {
    input_tokens: usages.reduce((n, u) => n + u.input_tokens, 0),
    output_tokens: usages.reduce((n, u) => n + u.output_tokens, 0),
    total_tokens: usages.reduce((n, u) => n + u.total_tokens, 0),
  };
}

/** The same history as the Agents SDK writes its items (callId, function_call_result). */
function agentHistory(): Item[] {
  return history().map((i) => {
    if (i.type === 'function_call') return { type: 'function_call', callId: i.call_id, name: i.name, arguments: i.arguments, status: 'completed' };
    if (i.type === 'function_call_output')
      return { type: 'function_call_result', callId: i.call_id, name: 'read_log', status: 'completed', output: { type: 'text', text: i.output } };
    return { type: 'message', ...i };
  });
}

/** A whole response as an upstream may write it: `output` as given, and bytes JSON would not give back (1e400, a key twice). */
const responseBody = (output: string) =>
  `{"id":"resp_raw" ,"object":"response","created_at":1,"status":"completed","model":"${MODEL}","output":${output},` +
  `"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15},"x":1e400,"x":-0}`;

const recallItems = (items: Item[]) => items.filter((i) => i.name === 'recap_recall' || (i.type === 'function_call_output' && String(i.output).startsWith('recap_recall')));

describe('recap_recall on the Responses route', () => {
  it('answers a recall by query inside the reply: the client gets the marker, the summed usage and no recap_recall item (JSON)', async () => {
    const { data, response } = await h.client({ conversation: 'recall-json' }).responses.create(params(history())).withResponse();
    expect(data.output_text).toContain(MARKER);
    expect(data.output.map((i) => i.type)).toEqual(['message']);
    expect(response.headers.get('x-recap-recalls')).toBe('1');
    const [first, second] = upstream();
    expect(upstream()).toHaveLength(2);
    // The forwarded view left the marker out; recap_recall comes after the client's tools.
    expect(first!.body).not.toContain(MARKER);
    expect(first!.json.tools.map((t: Item) => t.name)).toEqual(['read_log', 'recap_recall']);
    // The continuation: the same input, the call, and its answer holding the marker.
    expect(second!.json.input.slice(0, first!.json.input.length)).toEqual(first!.json.input);
    const added = second!.json.input.slice(first!.json.input.length);
    expect(added.map((i: Item) => i.type)).toEqual(['function_call', 'function_call_output']);
    expect(JSON.parse(added[0].arguments)).toEqual({ query: 'MARK-77' });
    expect(added[1].output).toContain(MARKER);
    expect(second!.json.tools).toEqual(first!.json.tools);
    expect(data.usage).toMatchObject(sum([sentJson(first!).usage, sentJson(second!).usage]));
    expect(h.logs.text).toContain('recap_recall answered');
    // The client's next turn carries what it got, which holds no recall: it goes through as any turn.
    const next = await h
      .client({ conversation: 'recall-json' })
      .responses.create(params([...history(), ...(data.output as Item[]), { role: 'user', content: 'Thanks. Anything else?' }]));
    expect(next.output_text).toMatch(/^Echo: Thanks/);
    expect(recallItems(upstream()[2]!.json.input)).toEqual([]);
    // Turn after turn, `tools` (recap_recall included) is the same bytes: the prompt cache holds.
    const toolsBytes = (r: RecordedRequest) => r.body.slice(r.body.indexOf('"tools":'));
    expect(toolsBytes(upstream()[2]!)).toBe(toolsBytes(first!));
  });

  it('answers a call that names recap_recall only through `\\u` escapes (a whole reply, as the upstream wrote it)', async () => {
    const call = `{"type":"function_call","id":"fc_esc","call_id":"call_esc","name":"recap\\u005frecall","arguments":${JSON.stringify('{"query":"MARK-77"}')},"status":"completed"}`;
    h.fake.enqueue({ body: responseBody(`[${call}]`), headers: { 'content-type': 'application/json' } }, { model: MODEL });
    const reply = await h.client({ conversation: 'recall-escaped' }).responses.create(params(history()));
    expect(reply.output_text).toContain(MARKER);
    expect(recallItems(reply.output as Item[])).toEqual([]);
    const [first, second] = upstream();
    expect(upstream()).toHaveLength(2);
    const added = second!.json.input.slice(first!.json.input.length);
    expect(added).toMatchObject([
      { type: 'function_call', call_id: 'call_esc', name: 'recap_recall' },
      { type: 'function_call_output', call_id: 'call_esc', output: expect.stringContaining(MARKER) },
    ]);
  });

  it('passes an upstream error during a continuation to the client as it came, storing nothing', async () => {
    h.fake.enqueue({ toolCalls: [{ name: 'recap_recall', arguments: '{"query":"MARK-77"}' }] }, { model: MODEL });
    h.fake.enqueue({ status: 503, body: { error: { message: 'overloaded now', type: 'server_error', param: null, code: 'overloaded' } } }, { model: MODEL });
    const err = await h
      .client({ conversation: 'recall-error' })
      .responses.create(params(history()))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, message: expect.stringContaining('overloaded now') });
    const inspect = await fetch(`${h.recap.url}/recap/v1/conversations/recall-error?route=responses`, { headers: { authorization: 'Bearer sk-test-key' } });
    expect(inspect.status).toBe(404);
  });

  it('streams the continuation in place of the held events: one coherent response for the SDK stream helper', async () => {
    const stream = h.client({ conversation: 'recall-stream' }).responses.stream(params(history()));
    const events: Item[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(final.output_text).toContain(MARKER);
    expect(recallItems(final.output as Item[])).toEqual([]);
    expect(events.filter((e) => e.item?.name === 'recap_recall')).toEqual([]);
    expect(events.filter((e) => e.type === 'response.function_call_arguments.delta')).toEqual([]);
    expect(events.at(-1)!.type).toBe('response.completed');
    const [first, second] = upstream();
    // What went out of the first reply came before its call showed (as far as its chunks did); the continuation's events follow.
    const created = events.filter((e) => e.type === 'response.created').map((e) => e.response.id);
    expect(created.at(-1)).toBe(streamedId(second!));
    expect(created.every((id) => upstream().some((r) => streamedId(r) === id))).toBe(true);
    expect(final.usage).toMatchObject(sum([streamedUsage(first!), streamedUsage(second!)]));
  });

  it('answers a recall by the handle a stub shows', async () => {
    h.fake.enqueue({ toolCalls: [{ name: 'recap_recall', arguments: JSON.stringify({ query: 'deploy key', id: 'call_2' }) }] }, { model: MODEL });
    const reply = await h.client({ conversation: 'recall-handle' }).responses.create(params(history()));
    expect(reply.output_text).toContain(MARKER);
    const answer = upstream()[1]!.json.input.at(-1);
    expect(answer).toMatchObject({ type: 'function_call_output' });
    expect(answer.output).toMatch(/^recap_recall: \[id call_2 · tool read_log result \((cleared|summarized)\)\]/);
  });

  it('works for an agent of the Agents SDK, streaming and not: its final output holds the marker, its items no recall', async () => {
    const agent = new Agent({
      name: 'ops',
      instructions: INSTRUCTIONS,
      model: new OpenAIResponsesModel(h.client({ conversation: 'recall-agent' }), MODEL),
      modelSettings: { store: false },
      tools: [tool({ name: 'read_log', description: 'Reads one part of the deploy log.', parameters: z.object({ part: z.number() }), execute: () => 'not called' })],
    });
    const done = await run(agent, agentHistory() as never);
    expect(done.finalOutput).toContain(MARKER);
    expect(done.newItems.map((i) => i.type)).toEqual(['message_output_item']);
    const streamed = await run(agent, agentHistory() as never, { stream: true });
    await streamed.completed;
    expect(streamed.finalOutput).toContain(MARKER);
    expect(streamed.newItems.map((i) => i.type)).toEqual(['message_output_item']);
    // Each run's reply took a recall: two upstream calls each.
    expect(upstream()).toHaveLength(4);
  });

  it.each([false, true])('stops at the hop bound and gives the client the last reply without its calls (stream %s)', async (stream) => {
    const again = { toolCalls: [{ name: 'recap_recall', arguments: '{"query":"nothing like it"}' }] };
    for (let i = 0; i < 3; i++) h.fake.enqueue(again, { model: MODEL });
    h.fake.enqueue({ content: 'What I have so far.', toolCalls: again.toolCalls }, { model: MODEL });
    const c = h.client({ conversation: `recall-bound-${stream}` });
    const reply = stream ? await c.responses.stream(params(history())).finalResponse() : await c.responses.create(params(history()));
    expect(upstream()).toHaveLength(4);
    expect(reply.output.map((i) => i.type)).toEqual(['message']);
    expect(reply.output_text).toBe('What I have so far.');
    expect(upstream()[3]!.json.input.at(-1).output).toContain('This was the last recall for this reply');
  });

  it('never recalls another conversation’s content', async () => {
    await h.client({ conversation: 'recall-owner' }).responses.create(params(history()));
    h.fake.reset();
    const other = await h.client({ conversation: 'recall-other' }).responses.create(params(history(false)));
    expect(other.output_text).toMatch(/^I don't know/);
    for (const r of upstream()) expect(r.body).not.toContain(MARKER);
  });
});

describe('a reply without a recall', () => {
  const plain = () => [...history().slice(0, -1), { role: 'user', content: 'Summarize what the log says.' }];

  it('reaches the client byte for byte, JSON and stream', async () => {
    for (const stream of [false, true]) {
      h.fake.reset();
      const res = await fetch(`${h.recap.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test-key', 'content-type': 'application/json', 'x-conversation-id': `plain-${stream}` },
        body: JSON.stringify({ ...params(plain()), stream }),
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      const [only] = upstream();
      expect(upstream()).toHaveLength(1);
      expect(only!.json.tools.map((t: Item) => t.name)).toEqual(['read_log', 'recap_recall']);
      expect(bytes.equals(h.fake.sentBytes(only!))).toBe(true);
      // The offer is on record (none answered) on a whole reply; a stream's headers leave before its reply is known.
      expect(res.headers.get('x-recap-recalls')).toBe(stream ? null : '0');
    }
  });

  it('reaches the client byte for byte as the upstream wrote it, escapes or none', async () => {
    const message = (text: string) =>
      `[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"${text}","annotations":[]}]}]`;
    for (const body of [responseBody(message('café ✓ line\\nnext')), responseBody(message('caf\\u00e9, not a call of recap_recall'))]) {
      h.fake.reset();
      h.fake.enqueue({ body, headers: { 'content-type': 'application/json' } }, { model: MODEL });
      const res = await fetch(`${h.recap.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test-key', 'content-type': 'application/json', 'x-conversation-id': 'plain-raw' },
        body: JSON.stringify(params(plain())),
      });
      expect(upstream()).toHaveLength(1);
      expect(upstream()[0]!.json.tools.map((t: Item) => t.name)).toEqual(['read_log', 'recap_recall']);
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(body)), body).toBe(true);
    }
  });

  it('with recall off in the model config, forwards what recap forwards without recall: no tool, no hint in the stubs', async () => {
    await h.client({ conversation: 'plain-off' }).responses.create(params(plain(), MODEL_OFF));
    const [only] = upstream();
    expect(only!.json.tools).toEqual(TOOLS);
    expect(only!.body).not.toContain('recap_recall');
    expect(only!.body).toContain('[recap: tool result cleared');
  });

  it('is not offered recall when the provider keeps the state', async () => {
    await h.client({ conversation: 'stateful' }).responses.create({ ...params(plain()), previous_response_id: 'resp_earlier' } as never);
    expect(upstream()[0]!.body).not.toContain('recap_recall');
  });
});
