import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { logPart, playAgentTask, TASK } from './helpers/agent-task.js';
import { independentCount } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';

// Issue 16's acceptance: the OpenAI Agents SDK (its chat-completions model class) runs one task of
// more than 80 tool steps through recap on a small-context model. Every request recap forwards is
// within budget, starts with the agent's instructions, holds the task verbatim and never splits a
// tool call from its result; each summary carries the one before it over.

setTracingDisabled(true);

const MODEL = 'gpt-test-agent';
const STEPS = 85;
const INSTRUCTIONS = 'You are an ops agent. Use read_log to read the deploy log part by part.';

type Sent = { role: string; content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, summarizerLatencyMs: 30 },
    models: [{ match: MODEL, context_window: 24000, max_output_tokens: 1000, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 400 } }],
  });
});
afterAll(async () => h?.close());

/** The headers of every response, in order: recap's view of each request it forwarded. */
function recordingClient(headers: Headers[]): OpenAI {
  return new OpenAI({
    baseURL: `${h.recap.url}/v1`,
    apiKey: 'sk-agent-key',
    maxRetries: 0,
    defaultHeaders: { 'x-conversation-id': 'agent-task-1' },
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      headers.push(res.headers);
      return res;
    },
  });
}

describe('an agent task of many tool steps, through @openai/agents', () => {
  it('stays within budget on every request: pinned instructions first, the task verbatim, calls with their results, summaries carried over', async () => {
    const script = playAgentTask(h.fake, MODEL, STEPS);
    const headers: Headers[] = [];
    const readLog = tool({
      name: 'read_log',
      description: 'Reads one part of the deploy log.',
      parameters: z.object({ part: z.number() }),
      execute: async ({ part }) => logPart(part),
    });
    const agent = new Agent({ name: 'ops', instructions: INSTRUCTIONS, model: new OpenAIChatCompletionsModel(recordingClient(headers), MODEL), tools: [readLog] });
    const result = await run(agent, TASK, { maxTurns: STEPS + 5 });
    expect(result.finalOutput).toContain('Root cause');
    await h.recap.runtime.background.idle();

    const sent = script.requests.map((r) => r.json as { messages: Sent[] });
    expect(sent.length).toBe(STEPS + 1);
    expect(headers).toHaveLength(sent.length);
    let compactedOrReused = 0;
    let cleared = 0;
    sent.forEach(({ messages }, i) => {
      const budget = Number(headers[i]!.get('x-recap-budget'));
      expect(budget).toBeGreaterThan(0);
      expect(Number(headers[i]!.get('x-recap-tokens-out'))).toBeLessThanOrEqual(budget);
      expect(independentCount(messages as never)).toBeLessThanOrEqual(budget);
      expect(messages[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
      expect(messages.filter((m) => m.role === 'user' && m.content === TASK)).toHaveLength(1);
      messages.forEach((m, k) => {
        if (m.role !== 'tool') return;
        let j = k - 1;
        while (j >= 0 && messages[j]!.role === 'tool') j--;
        expect(messages[j]!.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id);
      });
      if (headers[i]!.get('x-recap-action') !== 'none') compactedOrReused++;
      if (messages.some((m) => m.role === 'tool' && m.content?.startsWith('[recap: tool result cleared'))) cleared++;
    });
    // The task overflowed, was cleared and summarized, and most turns reused what was made.
    expect(compactedOrReused).toBeGreaterThan(STEPS / 2);
    expect(cleared).toBeGreaterThan(0);
    expect(sent.some(({ messages }) => messages[1]?.content?.startsWith(SUMMARY_MARKER))).toBe(true);

    // Each summarizer call after the first carries the previous call's summary.
    const calls = h.fake.summarizerRequests();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const summaries = calls.map((c) => (JSON.parse(h.fake.sentBytes(c).toString()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content);
    calls.forEach((c, k) => {
      const input = (c.json as { messages: { content: string }[] }).messages[1]!.content;
      if (k === 0) expect(input).toContain('There is no previous summary.');
      else expect(input).toContain(summaries[k - 1]!.split('\n').find((l) => l.includes('INC-4411') || l.startsWith('- '))!);
    });
  });
});
