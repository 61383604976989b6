import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import type { RecordedRequest, ScriptedReply } from '../src/dev/fake-upstream.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';
import { RECALL_MODEL, answerFromRecall, fileContent, marker, recallCall, recallModel, recallResults, taskHistory, toolNames } from './helpers/recall-task.js';

// Rule 13 over a long task: early results cleared, then summarized; the model gets a marker back from
// the summarized part; recall off leaves the forwarded bytes as they were; the hop bound holds on a
// stream; an @openai/agents run recalls mid-task and never sees the tool.

setTracingDisabled(true);
const OFF = 'gpt-test-recall-off';
const AGENT = 'gpt-test-recall-agent';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [recallModel(), { ...recallModel({ enabled: false }), match: OFF }, { ...recallModel({}, { context_window: 6000, max_output_tokens: 500 }), match: AGENT }],
  });
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.fake.reset();
  answerFromRecall(h.fake);
});

describe('recall over a long task', () => {
  it('gets a marker back from the summarized part of a task whose early results were cleared, then summarized', async () => {
    const client = h.client({ conversation: 'long-task' });
    // Long enough that clearing alone does not fit: the oldest steps go into a summary.
    const messages = taskHistory('L', 40);
    await client.chat.completions.create({ model: RECALL_MODEL, messages });
    const compacted = h.fake.chatRequests()[0]!;
    expect(compacted.json.messages[1].content).toContain(SUMMARY_MARKER);
    expect(compacted.json.messages[1].content).toContain('Earlier content can be recalled with recap_recall.');
    expect(compacted.body).not.toContain(`"${marker('L', 0)}`);

    h.fake.enqueue({ toolCalls: [recallCall({ query: marker('L', 0) })] });
    messages.push({ role: 'assistant', content: 'Read them all.' }, { role: 'user', content: 'Which id did module 0 export?' });
    const data = await client.chat.completions.create({ model: RECALL_MODEL, messages });
    expect(data.choices[0]!.message.content).toBe(`The id is ${marker('L', 0)}.`);
    const [result] = recallResults(h.fake.chatRequests().at(-1)!);
    expect(result).toContain('tool read_file result (summarized)');
  });

  it('with recall off, forwards exactly what it forwarded before recall existed', async () => {
    const messages = taskHistory('o', 12);
    const raw = JSON.stringify({ model: OFF, messages, seed: 1 });
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-key', 'x-conversation-id': 'recall-off' },
      body: raw,
    });
    expect(res.headers.get('x-recap-action')).toBe('compacted');
    expect(res.headers.get('x-recap-recalls')).toBeNull();
    const [sent] = h.fake.chatRequests();
    expect(sent!.json.tools).toBeUndefined();
    expect(sent!.body).not.toContain('recap_recall');
    // Only the messages changed, and a stub is the text it always was.
    expect(sent!.body.endsWith(',"seed":1}')).toBe(true);
    expect(sent!.json.messages[3].content).toMatch(
      /^\[recap: tool result cleared to save context — tool read_file, call call_o_0, \d+ tokens\. Call the tool again if you need it\.\]$/,
    );
  });

  it('stops a streamed reply at the hop bound with a plain end the stream helper reads', async () => {
    for (let i = 0; i < 4; i++) h.fake.enqueue({ toolCalls: [recallCall({ query: `module_${i}` })] });
    const stream = h
      .client({ conversation: 'stream-bound' })
      .chat.completions.stream({ model: RECALL_MODEL, messages: taskHistory('B', 12), stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    expect(h.fake.chatRequests()).toHaveLength(4);
    expect(final.choices[0]!.finish_reason).toBe('stop');
    expect(final.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(final.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(JSON.stringify(final)).not.toContain('recap_recall');
  });

  it('lets an @openai/agents chat-model run recall mid-task; the agent never sees recap_recall', async () => {
    const STEPS = 14;
    let step = 0;
    h.fake.setDefault((req: RecordedRequest): ScriptedReply | undefined => {
      if (req.json?.model !== AGENT) return undefined;
      const last = req.json.messages.at(-1);
      if (last?.role === 'tool' && String(last.content).startsWith('recap_recall:')) {
        const found = /MARKER-g-\d+/.exec(String(last.content).split('\n').slice(1).join('\n'));
        return { content: `Module 0 exports ${found?.[0] ?? 'nothing found'}.` };
      }
      step++;
      if (step <= STEPS) return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: `src/module_${step - 1}.ts` }) }] };
      return toolNames(req).includes('recap_recall') ? { toolCalls: [recallCall({ query: marker('g', 0) })] } : { content: 'recall was not offered' };
    });
    const readFile = tool({
      name: 'read_file',
      description: 'Reads a file.',
      parameters: z.object({ path: z.string() }),
      execute: async ({ path }) => fileContent('g', Number(/module_(\d+)/.exec(path)![1])),
    });
    const client = new OpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: 'sk-agent-key', maxRetries: 0, defaultHeaders: { 'x-conversation-id': 'agent-recall' } });
    const agent = new Agent({ name: 'coder', instructions: 'You are a coding agent.', model: new OpenAIChatCompletionsModel(client, AGENT), tools: [readFile] });
    const result = await run(agent, 'Read every module, then tell me the id module 0 exports.', { maxTurns: STEPS + 5 });
    expect(result.finalOutput).toBe(`Module 0 exports ${marker('g', 0)}.`);
    expect(JSON.stringify(result.history)).not.toContain('recap_recall');
    const requests = h.fake.chatRequests().filter((r) => r.json?.model === AGENT);
    expect(requests).toHaveLength(STEPS + 2);
    expect(recallResults(requests.at(-1)!)[0]).toContain(`export const ID = "${marker('g', 0)}"`);
  });
});
