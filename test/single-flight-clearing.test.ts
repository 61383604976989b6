import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefixOf } from '../src/store/checkpoints.js';
import type { Checkpoint, ConversationKey } from '../src/store/store.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { lockTableReads } from './helpers/lock-table-reads.js';

// Rule 9 on an agent's task: a checkpoint that only clears tool results is about a longer prefix
// than the summary it carries. Seen in the agent-task bench: a background compaction claimed the
// prefix of such a clearing checkpoint (to summarize further), and a request over the trigger whose
// base was that clearing checkpoint took the claim for "not ahead" of its base (same prefix) and
// summarized again from the same summary: two calls on one base. What a running compaction can
// add is measured against what the base's summary covers, not against the prefix it clears.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';

let h: Harness;
beforeAll(async () => {
  // A summary reservation this large lands each summary far below the target, so that a later
  // overflow is cleared on top of the summary rather than summarized again. Without the ledger:
  // it would fill the reservation with the steps' order ids.
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [smallModel({ summary_max_tokens: 2000, ledger: false }, { context_window: 6000, max_output_tokens: 300 })],
  });
});
afterAll(async () => h.close());

/** A tool result of ~300 tokens (clearable: over min_tokens 256), different per step. */
function result(step: number, lines = 18): string {
  return Array.from({ length: lines }, (_, i) => `row ${i}: order ORD-${step * 100 + i} settled in batch BATCH-${step}`).join('\n');
}

function toolStep(step: number, lines?: number): Msg[] {
  const id = `call_step_${step}`;
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'query_orders', arguments: `{"batch":"BATCH-${step}"}` } }] },
    { role: 'tool', tool_call_id: id, content: result(step, lines) },
  ];
}

describe('single flight over a clearing checkpoint', () => {
  it("waits for a compaction claimed at its base's cleared prefix instead of summarizing the same summary again", async () => {
    const records = h.recap.runtime.records;
    const { load } = records;
    let key: ConversationKey | undefined;
    records.load = (k) => ((key = k), load(k));
    const client = h.client({ conversation: 'agent-clearing-claim' });
    const history: Msg[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Task PAY-1: reconcile the batches.' },
    ];
    const send = (messages: Msg[]) => client.chat.completions.create({ model: MODEL, messages }).withResponse();

    // Steps until recap has summarized once and then, on top of that summary, only cleared results.
    let summarized = false;
    let clearedOnSummary = false;
    for (let step = 1; step <= 150 && !clearedOnSummary; step++) {
      history.push(...toolStep(step));
      const calls = h.fake.summarizerRequests().length;
      const { response } = await send([...history]);
      const newSummary = h.fake.summarizerRequests().length > calls;
      if (newSummary) summarized = true;
      else if (response.headers.get('x-recap-action') === 'compacted' && summarized) clearedOnSummary = true;
    }
    expect(clearedOnSummary).toBe(true);
    records.load = load;
    const stored = await load(key!);
    if (!stored || stored === 'unavailable') throw new Error('no record');
    const clearing = stored.checkpoints.reduce((a, b) => (prefixOf(b) > prefixOf(a) ? b : a));
    expect(clearing.summary).not.toBe('');
    expect(clearing.covered).toBeLessThan(prefixOf(clearing));

    // Another compaction of this branch is running, claimed at the clearing checkpoint's prefix.
    const prefix = prefixOf(clearing);
    const grant = await records.tryLock(key!, { id: clearing.chainHash, prefix, link: clearing.chainHash }, 30_000);
    if (grant === 'unavailable' || grant.token === null) throw new Error('could not take the lock');
    const { token } = grant;

    // A big newest step: even clearing all it can leaves the view over the trigger, a summary is needed.
    history.push(...toolStep(999, 260));
    const callsBefore = h.fake.summarizerRequests().length;
    const reads = await lockTableReads(h.recap);
    const pending = send([...history]);
    // The request is waiting for that compaction (polling the lock table), not summarizing itself.
    await expect.poll(() => lockTableReads(h.recap), { timeout: 10_000 }).toBeGreaterThanOrEqual(reads + 2);
    expect(h.fake.summarizerRequests()).toHaveLength(callsBefore);

    // The running compaction lands its summary and lets go: the waiting request goes on from it.
    const landed: Checkpoint = {
      covered: prefix,
      prefix,
      chainHash: clearing.chainHash,
      kept: [0],
      cleared: [],
      summary: '## Goal\n- HOLDER-SUMMARY: reconcile the batches of PAY-1.',
      summaryTokens: 20,
      coveredTokens: 1000,
      model: SUMMARIZER,
      createdAt: Date.now(),
    };
    expect(await records.add(key!, landed, [])).toBe(true);
    await records.unlock(key!, clearing.chainHash, token);
    const { response } = await pending;
    expect(response.status).toBe(200);
    // Whatever the request still had to do, it built on the landed summary (its view shows it, or
    // the summarizer call it made carried it over), never on the clearing checkpoint's summary again.
    const after = h.fake.summarizerRequests().slice(callsBefore);
    expect(after.length > 0 || h.fake.chatRequests().at(-1)!.body.includes('HOLDER-SUMMARY')).toBe(true);
    expect(after.every((r) => r.body.includes('HOLDER-SUMMARY'))).toBe(true);
  });
});
