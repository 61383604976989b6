import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../../src/compaction/summary-message.js';
import { overBudgetHistory, storedCheckpoints } from '../helpers/conversation.js';
import { type Harness, smallModel, startHarness, SUMMARIZER } from '../helpers/harness.js';
import { lockTableReads } from '../helpers/lock-table-reads.js';
import { settlesBefore } from '../helpers/settles-before.js';

// Rule 8 and rule 9: a client that gives up while recap is summarizing for it cancels the
// summarizer call, writes nothing and frees the conversation's compaction lock at once, so the
// conversation's next request compacts straight away instead of waiting out compaction_wait_ms.

const WAIT_MS = 20_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false }, server: { compaction_wait_ms: WAIT_MS } },
    models: [smallModel({ summarizer: { model: SUMMARIZER, timeout_ms: 60_000 } })],
  });
});
afterAll(async () => h.close());

describe('client aborts during the summarizer call', () => {
  it.each([false, true])('stream %s: the aborted request writes nothing and the next one compacts promptly', async (stream) => {
    const conversation = `abort-${stream}`;
    const client = h.client({ conversation });
    const messages = overBudgetHistory();
    const summarizerCalls = h.fake.summarizerRequests().length;
    const chatCalls = h.fake.chatRequests().length;
    // The first summary would take far longer than the test: only the abort can end that request.
    h.fake.enqueue({ delayMs: 60_000 }, { model: SUMMARIZER });

    const controller = new AbortController();
    const aborted = client.chat.completions.create({ model: 'gpt-test-small', messages, stream }, { signal: controller.signal }).catch((e: unknown) => e);
    await expect.poll(() => h.fake.summarizerRequests().length).toBe(summarizerCalls + 1);
    controller.abort();
    expect(await aborted).toBeInstanceOf(OpenAI.APIUserAbortError);
    // recap hangs up on the summarizer, forwards nothing, stores nothing.
    await expect.poll(() => h.fake.summarizerRequests().at(-1)!.closedEarly).toBe(true);
    expect(h.fake.chatRequests()).toHaveLength(chatCalls);
    expect(await storedCheckpoints(h.recap.url, conversation)).toBe(0);

    // Compacted (a request still waiting on the lock would degrade after compaction_wait_ms), and long before that.
    const next = client.chat.completions.create({ model: 'gpt-test-small', messages }).withResponse();
    expect(await settlesBefore(next, WAIT_MS)).toBe(true);
    const { data, response } = await next;
    expect(response.headers.get('x-recap-action')).toBe('compacted');
    expect(data.choices[0]!.message.content).toBeTruthy();
    const forwarded = h.fake.chatRequests().at(-1)!.json as { messages: { role: string; content: string }[] };
    expect(forwarded.messages[1]!.content.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(forwarded.messages.at(-1)).toEqual({ role: 'user', content: 'what next?' });
    expect(h.fake.summarizerRequests()).toHaveLength(summarizerCalls + 2);
    expect(await storedCheckpoints(h.recap.url, conversation)).toBe(1);
  });

  it('a request already waiting on the aborted compaction takes over at once', async () => {
    const conversation = 'abort-waiter';
    const client = h.client({ conversation });
    const messages = overBudgetHistory();
    const summarizerCalls = h.fake.summarizerRequests().length;
    h.fake.enqueue({ delayMs: 60_000 }, { model: SUMMARIZER });

    const controller = new AbortController();
    const aborted = client.chat.completions.create({ model: 'gpt-test-small', messages }, { signal: controller.signal }).catch((e: unknown) => e);
    await expect.poll(() => h.fake.summarizerRequests().length).toBe(summarizerCalls + 1);
    const reads = await lockTableReads(h.recap);
    const waiter = client.chat.completions.create({ model: 'gpt-test-small', messages }).withResponse();
    // The second request is waiting for the lock the first one holds: past its claim's read of the
    // lock table, it polls it.
    await expect.poll(() => lockTableReads(h.recap), { timeout: 10_000 }).toBeGreaterThanOrEqual(reads + 2);
    expect(h.fake.summarizerRequests()).toHaveLength(summarizerCalls + 1);
    controller.abort();
    expect(await aborted).toBeInstanceOf(OpenAI.APIUserAbortError);

    expect(await settlesBefore(waiter, WAIT_MS)).toBe(true);
    const { response } = await waiter;
    expect(response.headers.get('x-recap-action')).toBe('compacted');
    expect(h.fake.summarizerRequests()).toHaveLength(summarizerCalls + 2);
    expect(await storedCheckpoints(h.recap.url, conversation)).toBe(1);
  });
});
