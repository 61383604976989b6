import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';
import { answerFromRecall, marker, READ_FILE_TOOL, RECALL_MODEL, recallCall, recallModel, recallResults, taskHistory, toolNames } from './helpers/recall-task.js';

// Rule 13 on streamed chat replies: events go out as they come until the reply calls tools; a reply
// without a recall call is the upstream's bytes, one with a recall is replaced by the continuation's
// events, so the SDK's stream helpers read one coherent reply.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [recallModel()] });
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.fake.reset();
  answerFromRecall(h.fake);
});

async function rawStream(conversation: string, body: Record<string, unknown>): Promise<Buffer> {
  const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-key', 'x-conversation-id': conversation },
    body: JSON.stringify({ model: RECALL_MODEL, stream: true, ...body }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('recall in streamed chat replies', () => {
  it('streams the continuation in place of a reply that recalls: the stream helper sees one answer, usage summed', async () => {
    h.fake.enqueue({ content: 'Let me check. ', toolCalls: [recallCall({ query: marker('s', 1) })] });
    const stream = h.client({ conversation: 'stream-recall' }).chat.completions.stream({
      model: RECALL_MODEL,
      messages: taskHistory('s', 12),
      tools: [READ_FILE_TOOL],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(`Let me check. The id is ${marker('s', 1)}.`);
    expect(final.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(final.choices[0]!.finish_reason).toBe('stop');
    expect(JSON.stringify(final)).not.toContain('recap_recall');
    const [first, second] = h.fake.chatRequests();
    expect(recallResults(second!)[0]).toContain(marker('s', 1));
    const usages = [first!, second!].map((r) => {
      const text = h.fake.sentBytes(r).toString();
      return JSON.parse(/data: (\{[^\n]*"usage":\{[^\n]*)\n/.exec(text)![1]!).usage;
    });
    expect(final.usage!.prompt_tokens).toBe(usages[0].prompt_tokens + usages[1].prompt_tokens);
    expect(final.usage!.total_tokens).toBe(usages[0].total_tokens + usages[1].total_tokens);
  });

  it('forwards a stream without a recall call byte for byte: text only, or calling a client tool', async () => {
    const text = await rawStream('stream-plain', { messages: taskHistory('p', 12), stream_options: { include_usage: true } });
    const [plain] = h.fake.chatRequests();
    expect(toolNames(plain!)).toEqual(['recap_recall']);
    expect(text.equals(h.fake.sentBytes(plain!))).toBe(true);

    h.fake.enqueue({ content: 'Reading.', toolCalls: [{ name: 'read_file', arguments: '{"path":"src/y.ts"}' }] });
    const calls = await rawStream('stream-tool', { messages: taskHistory('p', 12), tools: [READ_FILE_TOOL] });
    const withTool = h.fake.chatRequests()[1]!;
    expect(calls.equals(h.fake.sentBytes(withTool))).toBe(true);
    expect(calls.toString()).toContain('read_file');
  });

  it('works under runTools: a recall, then the client tool the model calls after it, then the answer', async () => {
    h.fake.enqueue({ toolCalls: [recallCall({ query: 'module_2' })] });
    h.fake.enqueue({ toolCalls: [{ name: 'read_file', arguments: '{"path":"src/z.ts"}' }] });
    h.fake.enqueue({ content: 'All done.' });
    const read: string[] = [];
    const runner = h.client({ conversation: 'stream-run-tools' }).chat.completions.runTools({
      model: RECALL_MODEL,
      stream: true,
      messages: taskHistory('r', 12),
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Read a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
            parse: (text: string) => JSON.parse(text) as { path: string },
            function: (args: { path: string }) => {
              read.push(args.path);
              return 'export {}';
            },
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe('All done.');
    expect(read).toEqual(['src/z.ts']);
    expect(JSON.stringify(runner.messages)).not.toContain('recap_recall');
    // recall's continuation, then the client's next request carrying only its own tool's call and result.
    const requests = h.fake.chatRequests();
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[2]!.json.messages)).not.toContain('"name":"recap_recall"');
  });

  it('ends the stream with the upstream’s error when a continuation is refused, storing nothing', async () => {
    h.fake.enqueue({ toolCalls: [recallCall({ query: 'module_1' })] });
    h.fake.enqueue({ status: 429, body: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } } });
    const stream = h.client({ conversation: 'stream-error' }).chat.completions.stream({ model: RECALL_MODEL, messages: taskHistory('f', 12) });
    await expect(stream.finalChatCompletion()).rejects.toThrow(/slow down/);
    const inspect = await fetch(`${h.recap.url}/recap/v1/conversations/stream-error`, { headers: { authorization: 'Bearer sk-test-key' } });
    expect(inspect.status).toBe(404);
  });
});

describe('a streamed reply that breaks off during its recall call', () => {
  it('is not continued, and ends with recap’s error in place of the call, which the client never sees', async () => {
    h.fake.enqueue({ toolCalls: [recallCall({ query: 'module_1' })], sseError: { message: 'upstream fell over', type: 'server_error' } });
    const body = (await rawStream('stream-broken', { messages: taskHistory('k', 12) })).toString();
    const [only] = h.fake.chatRequests();
    expect(h.fake.chatRequests()).toHaveLength(1);
    expect(body).not.toContain('recap_recall');
    const events = body.split('\n\n').filter(Boolean);
    expect(JSON.parse(events.at(-1)!.slice('data: '.length))).toMatchObject({ error: { code: 'upstream_stream_failed', type: 'api_error' } });
    // What went before the call reached the client as the upstream sent it.
    const before = body.slice(0, body.length - events.at(-1)!.length - 2);
    expect(h.fake.sentBytes(only!).toString().startsWith(before)).toBe(true);
  });

  it('in a client tool call reaches the client as it came, with its error', async () => {
    h.fake.enqueue({ toolCalls: [{ name: 'read_file', arguments: '{"path":"a.ts"}' }], sseError: { message: 'upstream fell over', type: 'server_error' } });
    const body = await rawStream('stream-broken-client-call', { messages: taskHistory('k2', 12) });
    const [only] = h.fake.chatRequests();
    expect(body.equals(h.fake.sentBytes(only!))).toBe(true);
  });
});
