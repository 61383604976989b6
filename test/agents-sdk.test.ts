import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { logPart, playAgentTask, TASK } from './helpers/agent-task.js';
import { countRequest } from '../src/tokens/count-request.js';
import { independentCount } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';
import { chatToolsTokens, responsesPromptTokens } from './helpers/responses-tokens.js';

// Issues 16 and 21: the OpenAI Agents SDK runs one task of more than 80 tool steps through recap on
// a small-context model, with its chat-completions model class and with its default Responses
// model. Every request recap forwards is within budget, starts with the agent's instructions, holds
// the task verbatim and never splits a tool call from its result; each summary carries the one
// before it over.

setTracingDisabled(true);

const MODEL = 'gpt-test-agent';
const STEPS = 85;
const INSTRUCTIONS = 'You are an ops agent. Use read_log to read the deploy log part by part.';

type Sent = { role: string; content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };
type Item = { type?: string; role?: string; content?: unknown; call_id?: string; output?: unknown };

/** A forwarded request of either API, read as what the checks need. */
interface Forwarded {
  instructions: string | undefined;
  /** The user items' texts. */
  userTexts: string[];
  /** Each result's call, and the calls issued before it. */
  pairs: { call: string; issuedBefore: Set<string> }[];
  cleared: boolean;
  summarized: boolean;
  /** The prompt without tool definitions, recounted apart from recap (test/helpers). */
  tokens: number;
  /** The tool definitions as the chat route counts them. */
  toolsTokens: number;
}

const textOf = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '');

function readChat(body: { messages: Sent[] }): Forwarded {
  const { messages } = body;
  const pairs: Forwarded['pairs'] = [];
  const issued = new Set<string>();
  messages.forEach((m) => {
    for (const c of m.tool_calls ?? []) issued.add(c.id);
    if (m.role === 'tool') pairs.push({ call: m.tool_call_id!, issuedBefore: new Set(issued) });
  });
  return {
    instructions: messages[0]?.role === 'system' ? (messages[0].content ?? undefined) : undefined,
    userTexts: messages.filter((m) => m.role === 'user').map((m) => textOf(m.content)),
    pairs,
    cleared: messages.some((m) => m.role === 'tool' && m.content?.startsWith('[recap: tool result cleared')),
    summarized: textOf(messages[1]?.content).startsWith(SUMMARY_MARKER),
    tokens: independentCount(messages as never),
    toolsTokens: countRequest(body as never, undefined).tools_tokens,
  };
}

function readResponses(body: { instructions?: string; input: Item[]; tools?: Record<string, unknown>[] }): Forwarded {
  const pairs: Forwarded['pairs'] = [];
  const issued = new Set<string>();
  for (const item of body.input) {
    if (item.type === 'function_call') issued.add(item.call_id!);
    if (item.type === 'function_call_output') pairs.push({ call: item.call_id!, issuedBefore: new Set(issued) });
  }
  return {
    instructions: body.instructions,
    userTexts: body.input.filter((i) => i.role === 'user').map((i) => textOf(i.content)),
    pairs,
    cleared: body.input.some((i) => i.type === 'function_call_output' && String(i.output).startsWith('[recap: tool result cleared')),
    summarized: body.input.some((i) => i.role === 'system' && textOf(i.content).startsWith(SUMMARY_MARKER)),
    tokens: responsesPromptTokens(body),
    toolsTokens: chatToolsTokens(body.instructions, body.tools ?? []),
  };
}

const MODELS = [
  { api: 'chat completions', make: (c: OpenAI) => new OpenAIChatCompletionsModel(c, MODEL), read: (r: { json?: unknown }) => readChat(r.json as never) },
  { api: 'responses', make: (c: OpenAI) => new OpenAIResponsesModel(c, MODEL), read: (r: { json?: unknown }) => readResponses(r.json as never) },
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, summarizerLatencyMs: 30 },
    models: [{ match: MODEL, context_window: 24000, max_output_tokens: 1000, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 400 } }],
  });
});
afterAll(async () => h?.close());

/** The headers of every response, in order: recap's view of each request it forwarded. */
function recordingClient(headers: Headers[], conversation: string): OpenAI {
  return new OpenAI({
    baseURL: `${h.recap.url}/v1`,
    apiKey: 'sk-agent-key',
    maxRetries: 0,
    defaultHeaders: { 'x-conversation-id': conversation },
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      headers.push(res.headers);
      return res;
    },
  });
}

describe.each(MODELS)('an agent task of many tool steps, through @openai/agents ($api)', ({ api, make, read }) => {
  it('stays within budget on every request: pinned instructions first, the task verbatim, calls with their results, summaries carried over', async () => {
    const script = playAgentTask(h.fake, MODEL, STEPS);
    const callsBefore = h.fake.summarizerRequests().length;
    const headers: Headers[] = [];
    const readLog = tool({
      name: 'read_log',
      description: 'Reads one part of the deploy log.',
      parameters: z.object({ part: z.number() }),
      execute: async ({ part }) => logPart(part),
    });
    const agent = new Agent({ name: 'ops', instructions: INSTRUCTIONS, model: make(recordingClient(headers, `agent-task-${api}`)), tools: [readLog] });
    const result = await run(agent, TASK, { maxTurns: STEPS + 5 });
    expect(result.finalOutput).toContain('Root cause');
    await h.recap.runtime.background.idle();

    const sent = script.requests.map((r) => read(r));
    expect(sent.length).toBe(STEPS + 1);
    expect(headers).toHaveLength(sent.length);
    let compactedOrReused = 0;
    sent.forEach((forwarded, i) => {
      // The budget the rule gives (window − max_output_tokens − tools), and the forwarded prompt within it.
      const budget = 24000 - 1000 - forwarded.toolsTokens;
      expect(forwarded.toolsTokens).toBeGreaterThan(0);
      expect(forwarded.tokens).toBeLessThanOrEqual(budget);
      // Both headers count the tool definitions: the forwarded prompt with them, the window less the reply.
      expect(Number(headers[i]!.get('x-recap-tokens-out'))).toBe(forwarded.tokens + forwarded.toolsTokens);
      expect(Number(headers[i]!.get('x-recap-budget'))).toBe(24000 - 1000);
      expect(forwarded.instructions).toBe(INSTRUCTIONS);
      expect(forwarded.userTexts.filter((t) => t === TASK)).toHaveLength(1);
      for (const pair of forwarded.pairs) expect(pair.issuedBefore.has(pair.call)).toBe(true);
      if (headers[i]!.get('x-recap-action') !== 'none') compactedOrReused++;
    });
    // The task overflowed, was cleared and summarized, and most turns reused what was made.
    expect(compactedOrReused).toBeGreaterThan(STEPS / 2);
    expect(sent.some((f) => f.cleared)).toBe(true);
    expect(sent.some((f) => f.summarized)).toBe(true);

    // Each summarizer call after the first carries the previous call's summary.
    const calls = h.fake.summarizerRequests().slice(callsBefore);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const summaries = calls.map((c) => (JSON.parse(h.fake.sentBytes(c).toString()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content);
    calls.forEach((c, k) => {
      const input = (c.json as { messages: { content: string }[] }).messages[1]!.content;
      if (k === 0) expect(input).toContain('There is no previous summary.');
      else expect(input).toContain(summaries[k - 1]!.trim());
    });
  });
});
