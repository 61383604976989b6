import { afterAll, describe, expect, it } from 'vitest';
import { chatToolsTokens, responsesPromptTokens } from '../../../test/helpers/responses-tokens.js';
import { authenticate } from '../../auth/caller.js';
import { createModelResolver, parseConfig } from '../../config/config.js';
import { namedConversation } from '../../conversation/identify.js';
import { createLogger } from '../../observability/logger.js';
import { prepareRequest } from '../../pipeline/prepare.js';
import { RESPONSES_RECALL_TOOL_JSON } from '../../recall/tool.js';
import { createRuntime } from '../../runtime/runtime.js';
import { chatFormat } from '../chat/format.js';
import { responsesFormat } from './format.js';
import type { ResponseItem, ResponsesRequest } from './types.js';

// The Responses format's part of the request path before the engine (pipeline/prepare.ts), on the runtime
// recap serves with: the budget (x-recap-budget: the whole prompt's, window − output reservation,
// measured like x-recap-tokens-out, which counts the tools as the chat route counts them), the
// conversation its opening names, and the requests it leaves alone.

const config = parseConfig(
  `
server: { secret: "${'s'.repeat(32)}" }
upstreams:
  main: { base_url: "http://127.0.0.1:1/v1" }
models:
  - { match: "gpt-r", upstream: main, context_window: 20000, max_output_tokens: 2000, compaction: { strategy: summarize, summarizer: { model: sum } }, recall: { enabled: false } }
  - { match: "gpt-recall", upstream: main, context_window: 20000, max_output_tokens: 2000, compaction: { strategy: summarize, summarizer: { model: sum } } }
  - { match: "gpt-off", upstream: main, context_window: 20000, max_output_tokens: 2000, compaction: { strategy: "off" } }
`,
  'test.yaml',
  {},
);
const runtime = await createRuntime(config, createLogger('silent'));
afterAll(() => runtime.close());
const resolve = createModelResolver(config.models);

const TOOLS = [{ type: 'function', name: 'read_log', description: 'Reads one part of the deploy log.', parameters: { type: 'object', properties: { part: { type: 'number' } } } }];
const INSTRUCTIONS = 'You are an ops agent.';
const OPENING: ResponseItem[] = [
  { role: 'developer', content: 'Answer in English.' },
  { role: 'user', content: 'Investigate INC-4411.' },
];

/** A request as it leaves the door (auth/caller.ts), with the caller's credential: who asked, and the conversation it names. */
function incoming(extra: Record<string, string> = {}) {
  const headers = { authorization: 'Bearer sk-test', ...extra };
  return { caller: authenticate(headers, { anonymous: 'off' }), conversation: namedConversation(headers, config.server.conversation_header) };
}

async function prepare(body: ResponsesRequest, headers?: Record<string, string>) {
  const raw = JSON.stringify(body);
  const plan = await prepareRequest(runtime.pipeline, responsesFormat, {
    ...incoming(headers),
    model: resolve(body.model),
    signal: new AbortController().signal,
    bytes: raw.length,
    parsed: { body, raw: Buffer.from(raw), value: body, members: null },
  });
  await plan.abandon();
  // What the request's log line and event say of it: the plan's part of its outcome.
  return { plan, log: plan.outcome };
}

const request = (input: ResponseItem[], extra: Partial<ResponsesRequest> = {}): ResponsesRequest => ({ model: 'gpt-r', instructions: INSTRUCTIONS, input, tools: TOOLS, ...extra });

describe('the Responses route before the engine', () => {
  it("works out the budget as window − the request's max_output_tokens, the prompt counted with its tools as on the chat route", async () => {
    const tools = chatToolsTokens(INSTRUCTIONS, TOOLS);
    expect(tools).toBeGreaterThan(10);
    const { plan } = await prepare(request(OPENING, { max_output_tokens: 500 }));
    expect(plan.headers['x-recap-budget']).toBe(String(20000 - 500));
    expect(plan.headers['x-recap-tokens-in']).toBe(String(responsesPromptTokens(request(OPENING)) + tools));
    // Without a limit of its own, the model's max_output_tokens is reserved.
    expect((await prepare(request(OPENING))).plan.headers['x-recap-budget']).toBe(String(20000 - 2000));
    expect((await prepare(request(OPENING, { tools: undefined }))).plan.headers['x-recap-tokens-in']).toBe(String(responsesPromptTokens(request(OPENING))));
  });

  it('compacts exactly when the items pass window − output reservation − tools', async () => {
    // A 1,000-token window once the reply's 19,000 are reserved; the tools take their share of it.
    const messagesBudget = 20000 - 19000 - chatToolsTokens(INSTRUCTIONS, TOOLS);
    const items: ResponseItem[] = [...OPENING];
    const body = () => request([...items], { max_output_tokens: 19000 });
    for (let turn = 0; responsesPromptTokens(body()) <= messagesBudget; turn++) {
      items.push(
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Checked pod web-${turn}: restarted with exit code 137.` }] },
        { role: 'user', content: `And pod web-${turn + 1}?` },
      );
    }
    const over = body();
    const within = request(items.slice(0, -2), { max_output_tokens: 19000 });
    expect(responsesPromptTokens(within)).toBeLessThanOrEqual(messagesBudget);
    expect(responsesPromptTokens(over)).toBeGreaterThan(messagesBudget);
    expect((await prepare(within)).plan.headers['x-recap-action']).toBe('none');
    // Over it, recap compacts (its summarizer is unreachable here: the oldest items are dropped instead).
    const { plan } = await prepare(over);
    expect(plan.headers['x-recap-action']).toBe('degraded');
    expect(responsesPromptTokens({ ...over, input: plan.view! })).toBeLessThanOrEqual(messagesBudget);
  });

  it('plans for recap_recall as one more tool of the views that carry it, and offers it once the view leaves something out', async () => {
    const withRecall = chatToolsTokens(INSTRUCTIONS, [...TOOLS, JSON.parse(RESPONSES_RECALL_TOOL_JSON)]);
    const withoutRecall = chatToolsTokens(INSTRUCTIONS, TOOLS);
    const items: ResponseItem[] = [...OPENING];
    const body = (extra: Partial<ResponsesRequest> = {}) => request([...items], { model: 'gpt-recall', max_output_tokens: 19000, ...extra });
    const grow = (limit: number) => {
      while (responsesPromptTokens(body()) <= limit) {
        items.push(
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checked one more pod: restarted with exit code 137.' }] },
          { role: 'user', content: 'And the next?' },
        );
      }
    };
    grow(20000 - 19000 - withRecall);
    // Over the window less the tools with recap_recall, but under it less the client's tools alone:
    // as the client sent it, it fits, so it goes as sent, with no tool added (B31).
    expect(responsesPromptTokens(body())).toBeLessThanOrEqual(20000 - 19000 - withoutRecall);
    const asSent = (await prepare(body())).plan;
    expect(asSent.headers['x-recap-action']).toBe('none');
    expect(asSent.recall).toBeUndefined();
    grow(20000 - 19000 - withoutRecall);
    const { plan } = await prepare(body());
    expect(plan.headers['x-recap-action']).toBe('degraded');
    expect(plan.recall).toBeDefined();
    // Never beside tool_choice none: nothing is offered.
    const refused = (await prepare(body({ tool_choice: 'none' }))).plan;
    expect(refused.recall).toBeUndefined();
  });

  it('names the conversation by its opening: instructions, the leading items and the first user item', async () => {
    const conversation = async (body: ResponsesRequest, headers?: Record<string, string>) => (await prepare(body, headers)).log.conversation;
    const first = await conversation(request(OPENING));
    expect(first).toMatch(/^[\w-]{16}$/);
    // Later items continue (or branch) the same conversation.
    expect(await conversation(request([...OPENING, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'On it.' }] }]))).toBe(first);
    expect(await conversation(request([...OPENING, { role: 'user', content: 'And INC-4412?' }]))).toBe(first);
    // Another opening is another conversation.
    expect(await conversation(request(OPENING, { instructions: 'You are a billing agent.' }))).not.toBe(first);
    expect(await conversation(request([OPENING[0]!, { role: 'user', content: 'Investigate INC-9999.' }]))).not.toBe(first);
    expect(await conversation(request(OPENING.slice(1)))).not.toBe(first);
    // The header names it when given.
    expect(await conversation(request(OPENING), { 'x-conversation-id': 'task-1' })).not.toBe(first);
  });

  it('names a conversation of the Responses route apart from a chat conversation of the same id', async () => {
    const { log } = await prepare(request(OPENING), { 'x-conversation-id': 'shared-id' });
    const body = { model: 'gpt-r', messages: [{ role: 'user', content: 'hi' }] };
    const plan = await prepareRequest(runtime.pipeline, chatFormat, {
      ...incoming({ 'x-conversation-id': 'shared-id' }),
      model: resolve('gpt-r'),
      signal: new AbortController().signal,
      bytes: 10,
      parsed: { body, raw: Buffer.from(JSON.stringify(body)), value: body, members: null },
    });
    await plan.abandon();
    const chat = plan.outcome;
    expect(chat.conversation).toMatch(/^[\w-]{16}$/);
    expect(chat.conversation).not.toBe(log.conversation);
  });

  it.each([
    ['names previous_response_id', request(OPENING, { previous_response_id: 'resp_1' })],
    ['names a conversation', request(OPENING, { conversation: 'conv_1' })],
    ['has a string input', request([], { input: 'Investigate INC-4411.' })],
    ['is for a model with compaction off', request(OPENING, { model: 'gpt-off' })],
  ])('forwards a request that %s untouched, with its budget and counts', async (_what, body) => {
    const { plan, log } = await prepare(body);
    expect(plan.view).toBeNull();
    expect(plan.headers['x-recap-action']).toBe('none');
    expect(plan.headers['x-recap-budget']).toBe(String(20000 - 2000));
    expect(plan.headers['x-recap-tokens-in']).toBe(String(responsesPromptTokens(body) + chatToolsTokens(INSTRUCTIONS, TOOLS)));
    expect(log.conversation).toBeUndefined();
  });

  it('gives a model without config no budget', async () => {
    const { plan } = await prepare(request(OPENING, { model: 'unknown-model' }));
    expect(plan.headers['x-recap-budget']).toBeUndefined();
    expect(plan.headers['x-recap-tokens-in']).toBe(String(responsesPromptTokens(request(OPENING)) + chatToolsTokens(INSTRUCTIONS, TOOLS)));
  });
});
