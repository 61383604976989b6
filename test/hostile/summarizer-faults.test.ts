import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../src/dev/fake-upstream.js';
import { overBudgetHistory, storedCheckpoints } from '../helpers/conversation.js';
import { type Harness, smallModel, startHarness, SUMMARIZER } from '../helpers/harness.js';

// Rule 8: a summarizer that fails, or answers something that is not a usable summary, never fails
// the conversation. recap degrades (drops the oldest rounds for that request), stores nothing, and
// compacts normally on the next request once the summarizer answers properly.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';
const BUDGET = 2700;
const TIMEOUT_MS = 400;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [smallModel({ summarizer: { model: SUMMARIZER, timeout_ms: TIMEOUT_MS } })],
  });
});
afterAll(async () => h.close());

async function send(conversation: string, messages: Msg[]) {
  const { data, response } = await h.client({ conversation }).chat.completions.create({ model: MODEL, messages }).withResponse();
  return { action: response.headers.get('x-recap-action'), content: data.choices[0]!.message.content, out: Number(response.headers.get('x-recap-tokens-out')) };
}

const completion = (message: object, finishReason = 'stop') => ({
  id: 'chatcmpl-s',
  object: 'chat.completion',
  created: 1,
  model: SUMMARIZER,
  choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
});

// [name, the summarizer's reply, the reason recap logs]
const failures: [string, ScriptedReply, string][] = [
  ['a 500', { status: 500 }, 'summarizer_error'],
  ['no headers within its timeout', { delayMs: TIMEOUT_MS * 5 }, 'summarizer_timeout'],
  ['headers, then silence past its timeout', { stall: { ms: TIMEOUT_MS * 5 } }, 'summarizer_timeout'],
  ['an empty reply', { content: '' }, 'summarizer_empty'],
  ['a reply longer than its input', { content: 'All of it again, word for word. '.repeat(800) }, 'summary_too_long'],
  ['a 200 whose body is an error', { body: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } }, 'summarizer_error'],
  ['a 200 whose body is error text', { body: 'upstream connect error or disconnect/reset before headers' }, 'summarizer_error'],
  ['a refusal', { body: completion({ refusal: "I'm sorry, I can't help with that." }) }, 'summarizer_refused'],
  ['a reply cut off at its token limit', { content: '## Goal\nMigrate the cluster and then', finishReason: 'length' }, 'summarizer_truncated'],
  ['a filtered reply', { content: '## Goal\n', finishReason: 'content_filter' }, 'summarizer_refused'],
];

describe.each(failures)('summarizer answers %s', (name, reply, reason) => {
  it('the chat request succeeds degraded within budget, nothing is stored, and the next request compacts', async () => {
    const conversation = `summarizer-${name}`;
    const messages = overBudgetHistory();
    h.fake.enqueue(reply, { model: SUMMARIZER });
    const degraded = await send(conversation, messages);
    expect(degraded.action).toBe('degraded');
    expect(degraded.content).toBeTruthy();
    expect(degraded.out).toBeLessThanOrEqual(BUDGET);
    const forwarded = h.fake.chatRequests().at(-1)!.json as { messages: Msg[] };
    expect(forwarded.messages[0]).toEqual({ role: 'system', content: 'ops' });
    expect(forwarded.messages[1]!.role).toBe('user');
    expect(forwarded.messages.at(-1)).toEqual({ role: 'user', content: 'what next?' });
    expect(JSON.stringify(forwarded)).not.toContain('word for word');
    expect(h.logs.lines.some((l) => l.includes('"compaction degraded') && l.includes(`"reason":"${reason}"`))).toBe(true);
    expect(await storedCheckpoints(h.recap.url, conversation)).toBe(0);

    const recovered = await send(conversation, messages);
    expect(recovered.action).toBe('compacted');
    expect(await storedCheckpoints(h.recap.url, conversation)).toBe(1);
  });
});
