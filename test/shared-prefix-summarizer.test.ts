import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_PREFIX_MARKER } from '../src/compaction/prompt.js';
import { createPromptCache } from '../src/dev/prompt-cache.js';
import { isSharedPrefixCall } from '../src/dev/fake-summary.js';
import type { RecordedRequest } from '../src/dev/fake-types.js';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness } from './helpers/harness.js';

// Issue 36: `summarizer.shared_prefix` summarizes with the conversation's own model, on its own
// upstream, with the caller's credential, on the prefix recap forwarded last: byte for byte, then
// one instruction, so the provider (here the fake, caching as OpenAI does) serves it from its cache.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const KEY = 'sk-shared-prefix-test';
const model = (match: string) => ({
  match,
  context_window: 3000,
  max_output_tokens: 300,
  compaction: { strategy: 'summarize', summarizer: { shared_prefix: true }, summary_max_tokens: 250 },
});

let h: Harness;
beforeAll(async () => {
  const cache = createPromptCache({ mode: 'automatic' });
  const blocksOf = (r: RecordedRequest) =>
    (r.json.messages as unknown[]).map((m) => {
      const key = JSON.stringify(m);
      return { key, tokens: Math.ceil(key.length / 4) };
    });
  h = await startHarness({
    fake: { cachedTokens: (r) => cache.send(r.json.model, blocksOf(r), r.receivedAt).cached },
    extra: { background: { enabled: false } },
    models: [model('gpt-test-shared'), model('gpt-test-shared-failing')],
  });
});
afterAll(async () => h.close());

async function converse(modelName: string, turns: number): Promise<string[]> {
  const client = h.client({ apiKey: KEY, conversation: `shared-${modelName}` });
  const messages: Msg[] = [{ role: 'system', content: 'You help with the release notes.' }];
  const actions: string[] = [];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'user', content: prose(t, 60) });
    const { data, response } = await client.chat.completions.create({ model: modelName, messages }).withResponse();
    actions.push(response.headers.get('x-recap-action')!);
    messages.push({ role: 'assistant', content: data.choices[0]!.message.content ?? '' });
  }
  return actions;
}

/** The bytes of a chat body's `messages` array up to (not including) its closing bracket. */
const messagesOf = (body: string) => body.slice(body.indexOf('"messages":['), body.lastIndexOf(']'));

describe('a summarizer on the conversation’s shared prefix', () => {
  it('summarizes through the conversation’s own upstream and model, on the prefix forwarded last, byte for byte, read from the cache', async () => {
    const actions = await converse('gpt-test-shared', 24);
    expect(actions).toContain('compacted');
    const calls = h.fake.summarizerRequests().filter((r) => r.json.model === 'gpt-test-shared');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.path).toBe('/v1/chat/completions');
      expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
      const last = call.json.messages.at(-1);
      expect(last.role).toBe('user');
      expect(last.content.startsWith(SHARED_PREFIX_MARKER)).toBe(true);
      expect(call.json.stream).not.toBe(true);
      expect(call.json.max_tokens).toBeLessThanOrEqual(250);
      // The request recap forwarded just before: the summarizer's prefix is its messages, as sent.
      const before = h.fake.requests.filter((r) => r.receivedAt <= call.receivedAt && r !== call && r.json?.model === 'gpt-test-shared' && !isSharedPrefixCall(r.json)).at(-1)!;
      const prefix = messagesOf(call.body).slice(0, messagesOf(call.body).lastIndexOf(`,{"role":"user","content":"${SHARED_PREFIX_MARKER}`));
      expect(prefix.length).toBeGreaterThan(1000);
      expect(messagesOf(before.body).startsWith(prefix)).toBe(true);
      // The fake's cache served the prefix (from 1,024 tokens, in steps of 128).
      const usage = JSON.parse(h.fake.sentBytes(call).toString()).usage;
      expect(usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    }
  });

  it('degrades the turn, as with a separate summarizer, when the call fails', async () => {
    h.fake.setDefault((r) => (r.json?.model === 'gpt-test-shared-failing' && isSharedPrefixCall(r.json) ? { status: 500 } : undefined));
    const actions = await converse('gpt-test-shared-failing', 24);
    expect(actions).toContain('degraded');
    expect(actions).not.toContain('compacted');
    expect(h.fake.summarizerRequests().some((r) => r.json.model === 'gpt-test-shared-failing')).toBe(true);
  });
});
