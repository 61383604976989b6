import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { independentCount } from './helpers/conversation.js';
import { type Harness, smallModel, startHarness, SUMMARIZER } from './helpers/harness.js';

// Rules 10 and 11 on an agent's task: its steps come faster than a summary is written. When the
// summary a request needs is being made in the background and clearing old tool results still
// brings the request under the trigger, recap clears (no cost) and forwards at once, instead of
// waiting for the summary (and, past compaction_wait_ms, dropping history). Seen in the agent-task
// bench: requests held 0.3-1.7 s on a background summary that clearing could have done without.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';

let h: Harness;
beforeAll(async () => {
  // The background summary never comes back within the test: whatever needs it would wait.
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, summarizerLatencyMs: 30_000 },
    extra: { server: { compaction_wait_ms: 1_000 } },
    // Recall off: x-recap-tokens-out is checked against the forwarded messages alone (no tools).
    models: [{ ...smallModel({}, { context_window: 6000, max_output_tokens: 300 }), recall: { enabled: false } }],
  });
});
afterAll(async () => h.close());

function toolStep(step: number): Msg[] {
  const id = `call_step_${step}`;
  const rows = Array.from({ length: 18 }, (_, i) => `row ${i}: order ORD-${step * 100 + i} settled in batch BATCH-${step}`);
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'query_orders', arguments: `{"batch":"BATCH-${step}"}` } }] },
    { role: 'tool', tool_call_id: id, content: rows.join('\n') },
  ];
}

async function inlineSummarizerCalls(): Promise<number> {
  const values = (await h.recap.runtime.metrics.summarizerCalls.get()).values;
  return values.filter((v) => v.labels.mode === 'inline').reduce((n, v) => n + v.value, 0);
}

describe('clearing while a summary is prepared', () => {
  it('clears and forwards at once while the background summary it would need is still being written', async () => {
    const client = h.client({ conversation: 'agent-interim' });
    const history: Msg[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Task PAY-2: reconcile the batches.' },
    ];
    const actions: string[] = [];
    // Recounted apart from recap: what the client sent, what reached the upstream.
    const afterStart: { sent: number; forwarded: number }[] = [];
    // No tools, no max_tokens: the window less the model's max_output_tokens.
    const budget = 6000 - 300;
    let afterJobStarted = 0;
    for (let step = 1; step <= 120 && afterJobStarted < 20; step++) {
      history.push(...toolStep(step));
      const { response } = await client.chat.completions.create({ model: MODEL, messages: [...history] }).withResponse();
      expect(Number(response.headers.get('x-recap-budget'))).toBe(budget);
      const forwarded = independentCount(h.fake.chatRequests().at(-1)!.json.messages);
      expect(Number(response.headers.get('x-recap-tokens-out'))).toBe(forwarded);
      if (h.fake.summarizerRequests().length === 0) continue;
      afterJobStarted++;
      actions.push(String(response.headers.get('x-recap-action')));
      afterStart.push({ sent: independentCount(history as never), forwarded });
    }
    expect(afterJobStarted).toBe(20);
    // The one summarizer call is the background job's, still running: no request made its own.
    expect(h.fake.summarizerRequests()).toHaveLength(1);
    expect(await inlineSummarizerCalls()).toBe(0);
    // Requests needed compacting meanwhile (their view passed the trigger), and were cleared, not degraded.
    expect(afterStart.some((r) => r.sent > budget)).toBe(true);
    expect(actions).toContain('compacted');
    expect(actions).not.toContain('degraded');
    expect(afterStart.every((r) => r.forwarded <= budget)).toBe(true);
  });
});
