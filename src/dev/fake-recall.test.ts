// The fake model with recap_recall offered, through the official SDK on both routes, streaming and
// not: a probe whose cue the prompt lacks calls the tool with the cue, the continuation is answered
// from what the tool brought back, and a cue the prompt holds is answered at once.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';

let fake: FakeUpstream;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeUpstream();
  client = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => fake.close());

const QUESTION = 'Earlier in this conversation an identifier beginning with "MARK-7" came up. What was it exactly?';
const RECALL_PARAMETERS = { type: 'object', properties: { query: { type: 'string' }, id: { type: 'string' } }, required: ['query'] };
const chatRecall: OpenAI.Chat.Completions.ChatCompletionTool = { type: 'function', function: { name: 'recap_recall', description: 'Recall.', parameters: RECALL_PARAMETERS } };
const chatRead: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
};
const responsesRecall: OpenAI.Responses.FunctionTool = { type: 'function', name: 'recap_recall', description: 'Recall.', parameters: RECALL_PARAMETERS, strict: false };

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const stubbed: Msg[] = [
  { role: 'user', content: 'Read the config.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.yaml"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: '[recap: read_file result cleared, 900 tokens]' },
];

async function chat(messages: Msg[], tools: OpenAI.Chat.Completions.ChatCompletionTool[], stream: boolean): Promise<OpenAI.Chat.Completions.ChatCompletionMessage> {
  const body = { model: 'gpt-4o', messages, tools };
  if (!stream) return (await client.chat.completions.create(body)).choices[0]!.message;
  return (await client.chat.completions.stream(body).finalChatCompletion()).choices[0]!.message;
}

function continuation(call: OpenAI.Chat.Completions.ChatCompletionMessageToolCall, result: string): Msg[] {
  return [...stubbed, { role: 'user', content: QUESTION }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: result }];
}

describe.each([false, true])('chat completions (stream %s)', (stream) => {
  it('calls recap_recall with the cue its prompt lacks, then answers from the result', async () => {
    const first = await chat([...stubbed, { role: 'user', content: QUESTION }], [chatRead, chatRecall], stream);
    expect(first.content).toBeNull();
    const call = first.tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageToolCall & { type: 'function' };
    expect(first.tool_calls).toHaveLength(1);
    expect(call.function.name).toBe('recap_recall');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'MARK-7' });

    const answer = await chat(continuation(call, 'call_1 (read_file): region: eu-north\nowner key MARK-7731'), [chatRead, chatRecall], stream);
    expect(answer.tool_calls ?? []).toEqual([]);
    expect(answer.content).toContain('MARK-7731');
  });

  it('says it does not know when the recall brought nothing back, without calling again', async () => {
    const first = await chat([...stubbed, { role: 'user', content: QUESTION }], [chatRecall], stream);
    const answer = await chat(continuation(first.tool_calls![0]!, 'Nothing recap left out mentions "MARK-7".'), [chatRecall], stream);
    expect(answer.tool_calls ?? []).toEqual([]);
    expect(answer.content).toMatch(/^I don't know/);
  });
});

describe('chat completions without a recall', () => {
  it('answers at once what its prompt holds, tool offered or not', async () => {
    const messages: Msg[] = [
      { role: 'user', content: 'Key MARK-7731 is the owner.' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: QUESTION },
    ];
    expect((await chat(messages, [chatRecall], false)).content).toContain('MARK-7731');
  });

  it('does not know what it was not given when recap_recall is not offered', async () => {
    expect((await chat([...stubbed, { role: 'user', content: QUESTION }], [chatRead], false)).content).toMatch(/^I don't know/);
  });

  it('never calls recap_recall for a user who asks for a tool', async () => {
    const reply = await chat([{ role: 'user', content: 'Use a tool please.' }], [chatRecall], false);
    expect(reply.tool_calls ?? []).toEqual([]);
    const withClientTool = await chat([{ role: 'user', content: 'Use a tool please.' }], [chatRecall, chatRead], false);
    expect(withClientTool.tool_calls![0]).toMatchObject({ function: { name: 'read_file' } });
  });
});

type Item = OpenAI.Responses.ResponseInputItem;
const stubbedItems: Item[] = [
  { role: 'user', content: 'Read the config.' },
  { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.yaml"}' },
  { type: 'function_call_output', call_id: 'call_1', output: '[recap: read_file result cleared, 900 tokens]' },
];

async function respond(input: Item[], stream: boolean): Promise<OpenAI.Responses.Response> {
  const body = { model: 'gpt-4o', input, tools: [responsesRecall], store: false };
  return stream ? client.responses.stream(body).finalResponse() : client.responses.create(body);
}

describe.each([false, true])('responses (stream %s)', (stream) => {
  it('calls recap_recall as a function_call item, then answers from its function_call_output', async () => {
    const input: Item[] = [...stubbedItems, { role: 'user', content: QUESTION }];
    const first = await respond(input, stream);
    expect(first.output.map((item) => item.type)).toEqual(['function_call']);
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call.name).toBe('recap_recall');
    expect(JSON.parse(call.arguments)).toEqual({ query: 'MARK-7' });

    const answer = await respond([...input, ...(first.output as Item[]), { type: 'function_call_output', call_id: call.call_id, output: 'owner key MARK-7731' }], stream);
    expect(answer.output.map((item) => item.type)).toEqual(['message']);
    expect(answer.output_text).toContain('MARK-7731');
  });
});
