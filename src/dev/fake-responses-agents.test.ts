// The OpenAI Agents SDK with its default Responses model, run straight against the fake (no
// recap): a three-step tool task, parallel calls and reasoning items included, streaming and not.
// What the agent sends back each turn must pass the fake's OpenAI-style input checks, so this also
// shows those checks accept a real client's conversation.
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FakeUpstream, type RecordedRequest, startFakeUpstream } from './fake-upstream.js';

setTracingDisabled(true);

const INSTRUCTIONS = 'You are a support agent. Use the tools, then answer in one sentence.';
const TASK = 'Order ORD-4411 arrived damaged: look it up, check stock for a replacement in Oslo and Berlin, then open a ticket.';
const FINAL = 'Ticket T-77 is open: a replacement SKU-9 ships from Oslo.';

let fake: FakeUpstream;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeUpstream();
  client = new OpenAI({ baseURL: fake.url, apiKey: 'sk-agent', maxRetries: 0 });
});
beforeEach(() => fake.reset());
afterAll(() => fake.close());

/** The model's side of the task: three tool steps (the second two parallel calls), then the answer. */
function scriptTask(): void {
  const responses = { path: '/v1/responses' };
  fake.enqueue({ reasoning: { summary: ['Find the order first.'] }, toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"ORD-4411"}' }] }, responses);
  fake.enqueue(
    {
      toolCalls: [
        { name: 'check_stock', arguments: '{"sku":"SKU-9","city":"Oslo"}' },
        { name: 'check_stock', arguments: '{"sku":"SKU-9","city":"Berlin"}' },
      ],
    },
    responses,
  );
  fake.enqueue(
    {
      reasoning: { summary: ['Oslo has stock; open the ticket.'] },
      content: 'Opening a ticket.',
      toolCalls: [{ name: 'open_ticket', arguments: '{"order_id":"ORD-4411","sku":"SKU-9"}' }],
    },
    responses,
  );
  fake.enqueue({ content: FINAL }, responses);
}

function supportAgent(executed: string[]): Agent {
  const record = (name: string, result: string) => (args: object) => {
    executed.push(`${name} ${JSON.stringify(args)}`);
    return result;
  };
  const tools = [
    tool({ name: 'lookup_order', description: 'Looks up an order.', parameters: z.object({ order_id: z.string() }), execute: record('lookup_order', 'ORD-4411: SKU-9, damaged') }),
    tool({
      name: 'check_stock',
      description: 'Stock of a SKU in a city.',
      parameters: z.object({ sku: z.string(), city: z.string() }),
      execute: record('check_stock', '3 in stock'),
    }),
    tool({ name: 'open_ticket', description: 'Opens a ticket.', parameters: z.object({ order_id: z.string(), sku: z.string() }), execute: record('open_ticket', 'T-77') }),
  ];
  return new Agent({
    name: 'support',
    instructions: INSTRUCTIONS,
    model: new OpenAIResponsesModel(client, 'gpt-test-agent'),
    modelSettings: { store: false, providerData: { include: ['reasoning.encrypted_content'] } },
    tools,
  });
}

/** The parsed body the fake sent for a request: the response object, or the one `response.completed` carried. */
function responseSent(r: RecordedRequest): any {
  const text = fake.sentBytes(r).toString();
  if (r.json.stream !== true) return JSON.parse(text);
  const completed = text.split('\n\n').find((frame) => frame.startsWith('event: response.completed\n'))!;
  return JSON.parse(completed.split('\ndata: ')[1]!).response;
}

describe('a three-step tool task through @openai/agents and its Responses model', () => {
  it.each([false, true])('runs to the final answer, sending each call back with its output (stream: %s)', async (stream) => {
    scriptTask();
    const executed: string[] = [];
    let deltas = '';
    const agent = supportAgent(executed);
    let finalOutput: unknown;
    if (stream) {
      const result = await run(agent, TASK, { stream: true });
      for await (const event of result) {
        if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') deltas += event.data.delta;
      }
      await result.completed;
      finalOutput = result.finalOutput;
    } else {
      finalOutput = (await run(agent, TASK)).finalOutput;
    }

    expect(finalOutput).toBe(FINAL);
    if (stream) expect(deltas).toBe(`Opening a ticket.${FINAL}`);
    expect(executed).toEqual([
      'lookup_order {"order_id":"ORD-4411"}',
      'check_stock {"sku":"SKU-9","city":"Oslo"}',
      'check_stock {"sku":"SKU-9","city":"Berlin"}',
      'open_ticket {"order_id":"ORD-4411","sku":"SKU-9"}',
    ]);

    const requests = fake.responsesRequests();
    expect(requests).toHaveLength(4);
    expect(requests.every((r) => r.json.stream === stream && r.json.instructions === INSTRUCTIONS && r.json.store === false)).toBe(true);
    const sent = requests.map(responseSent);
    expect(sent.every((response) => response.status === 'completed')).toBe(true);

    // The last request replays the whole task: each turn's output items, then the outputs of its calls.
    const input: any[] = requests[3]!.json.input;
    const replayed = sent.slice(0, 3).flatMap((response) => response.output);
    const byId = new Map(input.filter((item) => item.id !== undefined).map((item) => [item.id, item]));
    for (const item of replayed) expect(byId.get(item.id)).toMatchObject({ type: item.type });
    const calls = replayed.filter((item) => item.type === 'function_call');
    expect(calls).toHaveLength(4);
    for (const call of calls) {
      const at = input.findIndex((item) => item.type === 'function_call' && item.call_id === call.call_id);
      const answer = input.findIndex((item) => item.type === 'function_call_output' && item.call_id === call.call_id);
      expect(at).toBeGreaterThan(-1);
      expect(answer).toBeGreaterThan(at);
    }
    // Reasoning goes back byte for byte, each item still followed by the step it led to.
    const reasoning = replayed.filter((item) => item.type === 'reasoning');
    expect(reasoning).toHaveLength(2);
    for (const item of reasoning) {
      expect(item.encrypted_content).toMatch(/^gAAAAA/);
      expect(byId.get(item.id).encrypted_content).toBe(item.encrypted_content);
      expect(input[input.indexOf(byId.get(item.id)) + 1].type).not.toBe('function_call_output');
    }
  });

  it('reports the usage the fake sent, input_tokens included', async () => {
    scriptTask();
    const result = await run(supportAgent([]), TASK);
    const reported = fake.responsesRequests().map((r) => responseSent(r).usage.input_tokens);
    expect(result.rawResponses.map((r) => r.usage.inputTokens)).toEqual(reported);
    expect(reported[3]).toBeGreaterThan(reported[0]);
  });
});
