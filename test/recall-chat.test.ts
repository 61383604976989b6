import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';
import { answerFromRecall, marker, READ_FILE_TOOL, RECALL_MODEL, recallCall, recallModel, recallResults, taskHistory, toolNames } from './helpers/recall-task.js';

// Rule 13 on the chat route, whole (JSON) replies: recap offers recap_recall once its view left
// something out, answers the model's calls from the request's own left-out messages, and gives the
// client only the final reply.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [recallModel()] });
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.fake.reset();
  answerFromRecall(h.fake);
});

const STUB = '[recap: tool result cleared';

describe('recall on the chat route', () => {
  it('answers a recall by query from a cleared result: the client gets the answer, never recap_recall, with usage summed', async () => {
    const client = h.client({ conversation: 'recall-query' });
    const messages = taskHistory('q', 12);
    h.fake.enqueue({ toolCalls: [recallCall({ query: marker('q', 0) })] });
    const { data, response } = await client.chat.completions.create({ model: RECALL_MODEL, messages, tools: [READ_FILE_TOOL] }).withResponse();
    expect(data.choices[0]!.message.content).toBe(`The id is ${marker('q', 0)}.`);
    expect(data.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(JSON.stringify(data)).not.toContain('recap_recall');
    expect(response.headers.get('x-recap-recalls')).toBe('1');
    // Counted by outcome, its hops observed, and logged without the query or what it found.
    const metrics = await (await fetch(`${h.recap.url}/metrics`)).text();
    const value = (prefix: string, label: string) =>
      metrics
        .split('\n')
        .filter((l) => l.startsWith(prefix) && l.includes(label))
        .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    expect(value('recap_recalls_total{', 'outcome="passages"')).toBeGreaterThanOrEqual(1);
    expect(value('recap_recall_hops_count{', '')).toBeGreaterThanOrEqual(1);
    await expect.poll(() => h.logs.text).toContain('recap_recall answered');
    // The request's log line counts the recalls answered inside its reply.
    await expect.poll(() => h.logs.text).toContain('"recalls":1');
    expect(h.logs.text).not.toContain(marker('q', 0));

    const [first, second] = h.fake.chatRequests();
    expect(h.fake.chatRequests()).toHaveLength(2);
    // The first request went with the stubs (saying recall exists) and the tool after the client's own.
    expect(toolNames(first!)).toEqual(['read_file', 'recap_recall']);
    expect(first!.body).toContain(STUB);
    expect(first!.body).toContain('Recall it with recap_recall (id call_q_0)');
    expect(first!.body).not.toContain(marker('q', 0));
    // The continuation: the same view, then the assistant's call and recap's result carrying the marker.
    const view = first!.json.messages;
    expect(second!.json.messages.slice(0, view.length)).toEqual(view);
    expect(second!.json.messages[view.length].tool_calls[0].function.name).toBe('recap_recall');
    expect(recallResults(second!)).toHaveLength(1);
    expect(recallResults(second!)[0]).toContain(`export const ID = "${marker('q', 0)}"`);
    expect(second!.body.slice(0, second!.body.indexOf('"messages"'))).toBe(first!.body.slice(0, first!.body.indexOf('"messages"')));

    const sent = h.fake.chatRequests().map((r) => JSON.parse(h.fake.sentBytes(r).toString()).usage);
    expect(data.usage!.prompt_tokens).toBe(sent[0].prompt_tokens + sent[1].prompt_tokens);
    expect(data.usage!.completion_tokens).toBe(sent[0].completion_tokens + sent[1].completion_tokens);
    expect(data.usage!.total_tokens).toBe(sent[0].total_tokens + sent[1].total_tokens);

    // The request's view map (its event) shows the cleared result the recall gave back (issue 38).
    const eventsOf = async () =>
      (await (await fetch(`${h.recap.url}/recap/v1/conversations/recall-query/events`, { headers: { authorization: 'Bearer sk-test-key' } })).json()) as {
        events?: { view?: [number, number, string, string, number][] }[];
      };
    await expect.poll(async () => (await eventsOf()).events?.length ?? 0).toBe(1);
    const { events } = await eventsOf();
    // system, task, then each step's call and result: step 0's result is message 3.
    expect(events![0]!.view!.find((row) => row[0] === 3)).toEqual([3, 1, 'tool', 'recalled', expect.any(Number)]);
    expect(events![0]!.view!.filter((row) => row[3] === 'recalled')).toHaveLength(1);

    // The next turn works unchanged, and its tools are the very same bytes.
    messages.push(data.choices[0]!.message as never, { role: 'user', content: 'Thanks, now summarize.' });
    const next = await client.chat.completions.create({ model: RECALL_MODEL, messages, tools: [READ_FILE_TOOL] });
    expect(next.choices[0]!.message.content).toBeTruthy();
    const third = h.fake.chatRequests()[2]!;
    const toolsBytes = (body: string) => body.slice(body.indexOf('"tools"'));
    expect(toolsBytes(third.body)).toBe(toolsBytes(first!.body));
  });

  it('answers a recall by the handle a stub prints', async () => {
    const client = h.client({ conversation: 'recall-handle' });
    h.fake.enqueue({ toolCalls: [recallCall({ query: 'module', id: 'call_h_1' })] });
    const data = await client.chat.completions.create({ model: RECALL_MODEL, messages: taskHistory('h', 12) });
    expect(data.choices[0]!.message.content).toBe(`The id is ${marker('h', 1)}.`);
    const [result] = recallResults(h.fake.chatRequests()[1]!);
    expect(result).toContain('[id call_h_1 · tool read_file result');
    expect(result).not.toContain(marker('h', 2));
  });

  it("never returns another conversation's content", async () => {
    await h.client({ conversation: 'recall-other-a' }).chat.completions.create({ model: RECALL_MODEL, messages: taskHistory('a', 12) });
    h.fake.enqueue({ toolCalls: [recallCall({ query: marker('a', 0) })] });
    const data = await h.client({ conversation: 'recall-other-b' }).chat.completions.create({ model: RECALL_MODEL, messages: taskHistory('b', 12) });
    expect(data.choices[0]!.message.content).toBe('I could not find it.');
    const [result] = recallResults(h.fake.chatRequests().at(-1)!);
    expect(result).toContain('nothing earlier in this conversation matches');
  });

  it('drops the client tool calls made beside a recall; the model makes them again', async () => {
    h.fake.enqueue({ toolCalls: [recallCall({ query: marker('t', 3) }), { name: 'read_file', arguments: '{"path":"src/x.ts"}' }] });
    h.fake.enqueue({ toolCalls: [{ name: 'read_file', arguments: '{"path":"src/x.ts"}' }] });
    const data = await h.client({ conversation: 'recall-beside' }).chat.completions.create({ model: RECALL_MODEL, messages: taskHistory('t', 12), tools: [READ_FILE_TOOL] });
    expect(data.choices[0]!.message.tool_calls!.map((c) => (c as { function: { name: string } }).function.name)).toEqual(['read_file']);
    const continuation = h.fake.chatRequests()[1]!;
    const assistant = continuation.json.messages.at(-2);
    expect(assistant.tool_calls.map((c: { function: { name: string } }) => c.function.name)).toEqual(['recap_recall']);
  });

  it('sends at most max_hops continuations, then gives the client a plain answer', async () => {
    for (let i = 0; i < 5; i++) h.fake.enqueue({ content: `looking ${i}`, toolCalls: [recallCall({ query: `module_${i}` })] });
    const { data, response } = await h
      .client({ conversation: 'recall-bound' })
      .chat.completions.create({ model: RECALL_MODEL, messages: taskHistory('m', 12) })
      .withResponse();
    expect(h.fake.chatRequests()).toHaveLength(4);
    expect(response.headers.get('x-recap-recalls')).toBe('3');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(data.choices[0]!.message.content).toBe('looking 3');
    expect(recallResults(h.fake.chatRequests()[3]!).at(-1)).toContain('This was the last recall for this reply');
  });

  it('answers bad arguments with a tool result saying so', async () => {
    h.fake.enqueue({ toolCalls: [recallCall('not json {')] });
    h.fake.enqueue({ content: 'ok' });
    const data = await h.client({ conversation: 'recall-bad' }).chat.completions.create({ model: RECALL_MODEL, messages: taskHistory('x', 12) });
    expect(data.choices[0]!.message.content).toBe('ok');
    expect(recallResults(h.fake.chatRequests()[1]!)).toEqual([expect.stringContaining('the arguments are not valid JSON')]);
  });

  it('passes an upstream error during a continuation to the client as it came, storing nothing', async () => {
    h.fake.enqueue({ toolCalls: [recallCall({ query: 'module_1' })] });
    h.fake.enqueue({ status: 503, body: { error: { message: 'overloaded now', type: 'server_error', param: null, code: 'overloaded' } } });
    const client = h.client({ conversation: 'recall-error' });
    const err = await client.chat.completions.create({ model: RECALL_MODEL, messages: taskHistory('e', 12) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, message: expect.stringContaining('overloaded now') });
    const inspect = await fetch(`${h.recap.url}/recap/v1/conversations/recall-error`, { headers: { authorization: 'Bearer sk-test-key' } });
    expect(inspect.status).toBe(404);
  });

  it('forwards a reply without a recall call as the upstream sent it', async () => {
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-key', 'x-conversation-id': 'recall-none' },
      body: JSON.stringify({ model: RECALL_MODEL, messages: taskHistory('n', 12) }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const [only] = h.fake.chatRequests();
    expect(toolNames(only!)).toEqual(['recap_recall']);
    expect(bytes.equals(h.fake.sentBytes(only!))).toBe(true);
    expect(res.headers.get('x-recap-recalls')).toBe('0');
  });
});
