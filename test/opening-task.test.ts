import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { logPart } from './helpers/agent-task.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';

// Rule 1's opening task (issue 26): agent harnesses send `user` messages of their own in the
// middle of a task ("Tool call error: …", "continue"). Each starts a round; once the cut passed
// one, recap used to keep the note as "the task of the cut round" and summarize the real task
// away. The opening task now stays verbatim in every forwarded request, on both routes.

const MODEL = 'gpt-test-task';
const TASK = 'Fix issue BUG-7731: the importer in src/importer/csv.ts drops rows whose quoted fields contain newlines. Add a regression test under test/importer/.';
const NOTES: Record<number, string> = {
  20: "Tool call error: run_command: Missing 'command' argument",
  45: 'continue',
  70: 'Reminder: keep the changes small.',
  95: 'continue',
};
const STEPS = 110;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [{ match: MODEL, context_window: 8000, max_output_tokens: 500, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 400 } }],
  });
  let step = 0;
  h.fake.setDefault((req) => {
    if (req.json?.model !== MODEL) return undefined;
    step++;
    return { toolCalls: [{ name: 'run_command', arguments: JSON.stringify({ command: `cat part-${step}.log` }) }] };
  });
});
afterAll(async () => h?.close());

/** A 1-2 KB command output. */
const output = (step: number) => logPart([0, 1, 8, 9][step % 4]!);

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Item = Record<string, any>;

async function chatTask(conversation: string): Promise<void> {
  const client = h.client({ conversation });
  const messages: Msg[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: TASK },
  ];
  for (let step = 1; step <= STEPS; step++) {
    const reply = await client.chat.completions.create({ model: MODEL, messages });
    const call = reply.choices[0]!.message.tool_calls![0]!;
    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: output(step) });
    const note = NOTES[step];
    if (note) messages.push({ role: 'user', content: note });
  }
}

async function responsesTask(conversation: string): Promise<void> {
  const client = h.client({ conversation });
  const input: Item[] = [{ role: 'user', content: TASK }];
  for (let step = 1; step <= STEPS; step++) {
    const reply = await client.responses.create({ model: MODEL, instructions: 'You are a coding agent.', input: input as never, store: false });
    const call = (reply.output as Item[]).find((i) => i.type === 'function_call')!;
    input.push(call, { type: 'function_call_output', call_id: call.call_id, output: output(step) });
    const note = NOTES[step];
    if (note) input.push({ role: 'user', content: note });
  }
}

describe.each([
  ['chat completions', chatTask, () => h.fake.chatRequests().map((r) => r.json.messages as Item[])],
  ['responses', responsesTask, () => h.fake.responsesRequests().map((r) => r.json.input as Item[])],
])('a %s agent task with harness notes mid-task', (route, run, forwarded) => {
  it('carries the opening task verbatim in every forwarded request, right after the summary', async () => {
    const before = forwarded().length;
    const summariesBefore = h.fake.summarizerRequests().length;
    await run(`opening-task-${route}`);
    const sent = forwarded().slice(before);
    expect(sent).toHaveLength(STEPS);
    // The task was compacted, and the cut went past the harness notes.
    expect(h.fake.summarizerRequests().length).toBeGreaterThan(summariesBefore + 2);
    const isSummary = (i: Item) => typeof i.content === 'string' && i.content.startsWith(SUMMARY_MARKER);
    const last = sent.at(-1)!;
    expect(last.some((i) => i.content === NOTES[20])).toBe(false);
    for (const items of sent) {
      expect(items.filter((i) => i.role === 'user' && i.content === TASK)).toHaveLength(1);
      const summary = items.findIndex(isSummary);
      if (summary !== -1) expect(items[summary + 1]).toMatchObject({ role: 'user', content: TASK });
    }
    // The cut round's own note stays after the task when the cut falls inside its round.
    const withNote = sent.filter((items) => items.some(isSummary) && items.some((i) => i.content === NOTES[95]));
    expect(withNote.length).toBeGreaterThan(0);
  });
});

describe('an opening task over its share of the budget', () => {
  it('is summarized like the rest once its round is passed, and the summary says so', async () => {
    const client = h.client({ conversation: 'opening-task-too-big' });
    // About 2,800 tokens: over a quarter of the 7,500-token budget.
    const big = `${TASK}\n${logPart(5)}`;
    const messages: Msg[] = [{ role: 'user', content: big }];
    for (let step = 1; step <= 30; step++) {
      const reply = await client.chat.completions.create({ model: MODEL, messages });
      const call = reply.choices[0]!.message.tool_calls![0]!;
      messages.push({ role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: output(step) });
      if (step === 5) messages.push({ role: 'user', content: 'continue' });
    }
    const last = h.fake.chatRequests().at(-1)!.json.messages as Item[];
    expect(last.some((m) => m.content === big)).toBe(false);
    expect(String(last[0]!.content)).toMatch(
      /<recap_summary seal="[^"]+">\nNote by recap: the opening task \(the conversation's first user message, \d+ tokens\) is not kept verbatim; it is summarized here\.\n/,
    );
  });
});
