import type OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { splitLedger } from '../src/compaction/ledger-section.js';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { logPart } from './helpers/agent-task.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';

// The ledger ranked by provenance (rule 5, issue 26): newest-first and unranked, it let tool-output
// values push out what users stated in the first rounds and the paths an agent acted on (the
// artifact trail). With a summarizer that drops every identifier, what users stated and what tool
// calls named is still in the forwarded request at the end; tool outputs give way first.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-provenance';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(window: { context_window: number; max_output_tokens: number }, summaryMaxTokens: number): Promise<Harness> {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, lossySummarizer: true },
    extra: { background: { enabled: false } },
    models: [{ match: MODEL, ...window, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: summaryMaxTokens } }],
  });
  return h;
}

const lastForwarded = (harness: Harness) => harness.fake.chatRequests().at(-1)!.body;
/** The ledger entries of the summary in the last forwarded request. */
function lastLedger(harness: Harness) {
  const messages = harness.fake.chatRequests().at(-1)!.json.messages as { role: string; content: string }[];
  const summary = messages.find((m) => m.role === 'system' && m.content.startsWith(SUMMARY_MARKER));
  return summary ? splitLedger(summary.content).entries : [];
}

describe('the ledger ranked by provenance', () => {
  it('keeps what users stated in the first rounds through 6+ lossy generations, while tool outputs are full of identifiers', async () => {
    const harness = await start({ context_window: 4000, max_output_tokens: 400 }, 400);
    const facts = [2, 3, 4, 5, 6].map((round) => `FACT-${1000 + round}`);
    const client = harness.client({ conversation: 'user-facts' });
    const messages: Msg[] = [{ role: 'system', content: 'You help the billing support team.' }];
    for (let round = 1; round <= 120; round++) {
      const fact = round >= 2 && round <= 6 ? ` Remember ${facts[round - 2]} for the refund.` : '';
      messages.push({ role: 'user', content: `Round ${round}: check the refund queue.${fact}` });
      const id = `call_${round}`;
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'queue_status', arguments: `{"queue":"refunds"}` } }] });
      // About 500 tokens of pod names, trace ids and timestamps: the noise of tool outputs.
      messages.push({ role: 'tool', tool_call_id: id, content: logPart(round * 8) });
      const reply = await client.chat.completions.create({ model: MODEL, messages });
      messages.push({ role: 'assistant', content: reply.choices[0]!.message.content ?? '' });
    }
    expect(harness.fake.summarizerRequests().length).toBeGreaterThanOrEqual(6);
    // The summarizer dropped them; recap carried them, as what the user stated.
    const body = lastForwarded(harness);
    expect(facts.filter((fact) => !body.includes(fact))).toEqual([]);
    for (const fact of facts) expect(lastLedger(harness)).toContainEqual({ id: fact, from: 'user' });
    for (const r of harness.fake.summarizerRequests().slice(-1)) {
      const reply = JSON.parse(harness.fake.sentBytes(r).toString()).choices[0].message.content as string;
      for (const fact of facts) expect(reply).not.toContain(fact);
    }
  }, 120_000);

  it('keeps every file path a tool call named in a 120-step agent task (summary_max_tokens 2048), decoded from the arguments', async () => {
    const harness = await start({ context_window: 8000, max_output_tokens: 500 }, 2048);
    const client = harness.client({ conversation: 'artifact-trail' });
    const path = (step: number) => `src/app/handlers/handler_${step % 60}.py`;
    const messages: Msg[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Make every handler log its request id.' },
    ];
    const named = new Set<string>();
    for (let step = 1; step <= 120; step++) {
      const id = `call_${step}`;
      // Step 7 runs a script: JSON-escaped newlines inside its arguments.
      const args = step === 7 ? { command: 'python3 -c', code: 'import os\nfor d in dirs:\n    os.makedirs(d)' } : { path: path(step), action: step <= 60 ? 'read' : 'edit' };
      if (step !== 7) named.add(path(step));
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: step === 7 ? 'run' : 'file', arguments: JSON.stringify(args) } }] });
      // 1-2 KB of log lines full of identifiers.
      messages.push({ role: 'tool', tool_call_id: id, content: logPart([0, 1, 8, 9][step % 4]!) });
      await client.chat.completions.create({ model: MODEL, messages });
    }
    expect(harness.fake.summarizerRequests().length).toBeGreaterThanOrEqual(2);
    const body = lastForwarded(harness);
    const sent = JSON.stringify((JSON.parse(body) as { messages: unknown[] }).messages);
    const missing = [...named].filter((p) => !sent.includes(p));
    expect(missing).toEqual([]);
    // Read from the decoded script, never from its raw escapes (`\nos.makedirs`).
    expect(lastLedger(harness).map((e) => e.id)).toContain('os.makedirs');
    expect(body).not.toContain('nos.makedirs');
  }, 120_000);
});
