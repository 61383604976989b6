import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../src/dev/fake-upstream.js';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';

// Rule 8: the summarizer failing never fails the conversation; recap degrades (drops the oldest
// rounds for that request, writes nothing) and compacts normally once the summarizer recovers.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';
const CANARY = 'sk-proj-CANARYcanary0123456789abcdefXYZ';

let h: Harness;
afterEach(async () => h?.close());

async function start(summarizerTimeoutMs = 5000) {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [
      {
        match: MODEL,
        context_window: 3000,
        max_output_tokens: 300,
        compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER, timeout_ms: summarizerTimeoutMs }, summary_max_tokens: 250 },
      },
    ],
  });
}

/** A history just over the budget, so the next request must compact. */
function overBudget(extra = ''): Msg[] {
  const messages: Msg[] = [{ role: 'system', content: 'ops' }];
  for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: `${prose(t)}${t === 1 ? extra : ''}` }, { role: 'assistant', content: `ok ${t}` });
  messages.push({ role: 'user', content: 'what next?' });
  return messages;
}

async function send(messages: Msg[]) {
  const { data, response } = await h.client({ conversation: 'fail' }).chat.completions.create({ model: MODEL, messages }).withResponse();
  return { action: response.headers.get('x-recap-action'), content: data.choices[0]!.message.content, out: Number(response.headers.get('x-recap-tokens-out')) };
}

const failures: [string, ScriptedReply, number?][] = [
  ['a 500', { status: 500 }],
  ['an empty reply', { content: '' }],
  ['a timeout', { delayMs: 2000 }, 300],
];

describe.each(failures)('summarizer failure: %s', (_name, reply, timeoutMs) => {
  it('answers degraded within budget, writes nothing, and compacts once the summarizer recovers', async () => {
    await start(timeoutMs);
    h.fake.enqueue(reply, { model: SUMMARIZER });
    const messages = overBudget();
    const degraded = await send(messages);
    expect(degraded.action).toBe('degraded');
    expect(degraded.content).toBeTruthy();
    expect(degraded.out).toBeLessThanOrEqual(2700);
    const forwarded = h.fake.chatRequests().at(-1)!.json as { messages: Msg[] };
    expect(forwarded.messages[0]).toEqual({ role: 'system', content: 'ops' });
    expect(forwarded.messages[1]!.role).toBe('user');
    expect(forwarded.messages.at(-1)).toEqual({ role: 'user', content: 'what next?' });
    expect((await fetch(`${h.recap.url}/recap/v1/conversations/fail`, { headers: { authorization: 'Bearer sk-test-key' } })).status).toBe(404);

    const recovered = await send(messages);
    expect(recovered.action).toBe('compacted');
  });
});

describe('redaction', () => {
  it('never sends a secret from an evicted message to the summarizer', async () => {
    await start();
    const result = await send(overBudget(` my key is ${CANARY} and Authorization: Bearer abcdef0123456789abcdef`));
    expect(result.action).toBe('compacted');
    const toSummarizer = h.fake.summarizerRequests().map((r) => r.body).join('\n');
    expect(toSummarizer).toContain('ORD-1001');
    expect(toSummarizer).not.toContain(CANARY);
    expect(toSummarizer).not.toContain('abcdef0123456789abcdef');
    expect(toSummarizer).toContain('[REDACTED');
  });
});
