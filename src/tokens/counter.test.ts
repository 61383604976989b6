import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { messageHash } from '../conversation/canonical.js';
import { createTokenCache, tokenCacheKey } from './cache.js';
import { createTokenCounter } from './counter.js';
import { SAMPLES } from './samples.case.js';

// The example conversation of OpenAI's cookbook "How to count tokens with tiktoken", section 6.
// The cookbook prints the API's prompt_tokens for it: 129 on gpt-3.5-turbo / gpt-4 (cl100k_base)
// and 124 on gpt-4o / gpt-4o-mini (o200k_base).
const COOKBOOK_MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.' },
  { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
  { role: 'system', name: 'example_assistant', content: 'Things working well together will increase revenue.' },
  { role: 'system', name: 'example_user', content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage." },
  { role: 'system', name: 'example_assistant', content: "Let's talk later when we're less busy about how to do better." },
  { role: 'user', content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
];

const LIMITS = { cache_max_entries: 1000, cache_max_bytes: 1_000_000 };

describe('createTokenCounter', () => {
  it('reproduces the cookbook counts: 129 with cl100k_base, 124 with o200k_base', () => {
    expect(createTokenCounter({ encoding: 'cl100k_base' }).countMessages(COOKBOOK_MESSAGES).total).toBe(129);
    expect(createTokenCounter({ encoding: 'o200k_base' }).countMessages(COOKBOOK_MESSAGES).total).toBe(124);
  });

  it('gives per-message counts that sum with the 3 priming tokens to the total', () => {
    const { total, perMessage } = createTokenCounter({ encoding: 'o200k_base' }).countMessages(COOKBOOK_MESSAGES);
    expect(perMessage).toHaveLength(6);
    expect(perMessage.reduce((a, b) => a + b, 3)).toBe(total);
    expect(createTokenCounter({ encoding: 'o200k_base' }).countMessages([]).total).toBe(3);
  });

  describe('edge cases (o200k_base)', () => {
    const counter = createTokenCounter({ encoding: 'o200k_base' });
    const text = (s: string): number => counter.countText(s);

    it('adds a name as its tokens plus one', () => {
      const plain = counter.countMessage({ role: 'user', content: 'hi' });
      expect(counter.countMessage({ role: 'user', name: 'alice_smith', content: 'hi' })).toBe(plain + text('alice_smith') + 1);
    });

    it('counts empty or missing content as framing and role only', () => {
      const framing = 3 + text('assistant');
      expect(counter.countMessage({ role: 'assistant', content: '' })).toBe(framing);
      expect(counter.countMessage({ role: 'assistant', content: null })).toBe(framing);
      expect(counter.countMessage({ role: 'assistant', content: [] })).toBe(framing);
    });

    it('counts text parts as text and images by the tile formula', () => {
      const parts: ChatMessage = {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this image?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'image_url', image_url: { url: 'https://example.com/dog.jpg', detail: 'low' } },
        ],
      };
      expect(counter.countMessage(parts)).toBe(3 + text('user') + text('What is in this image?') + 765 + 85);
    });

    it('counts audio and file parts at their documented fixed estimates', () => {
      const m: ChatMessage = {
        role: 'user',
        content: [
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          { type: 'file', file: { file_data: 'JVBERi0=', filename: 'a.pdf' } },
        ],
      };
      expect(counter.countMessage(m)).toBe(3 + text('user') + 256 + 1024);
    });

    it('counts tool calls as name, arguments and 3 tokens each', () => {
      const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
      const m: ChatMessage = {
        role: 'assistant',
        content: null,
        tool_calls: [call('call_1', 'get_weather', '{"city":"Paris"}'), call('call_2', 'get_time', '{"tz":"Europe/Paris"}')],
      };
      const expected = 3 + text('assistant') + text('get_weather') + text('{"city":"Paris"}') + 3 + text('get_time') + text('{"tz":"Europe/Paris"}') + 3;
      expect(counter.countMessage(m)).toBe(expected);
    });

    it('counts a tool result as its content, without the tool_call_id', () => {
      const result = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: '{"temperature": 21, "unit": "C"}' });
      expect(counter.countMessage(result('call_1'))).toBe(3 + text('tool') + text('{"temperature": 21, "unit": "C"}'));
      expect(counter.countMessage(result('call_a_much_longer_identifier_0123456789'))).toBe(counter.countMessage(result('call_1')));
    });

    it('counts unicode, CJK and emoji text exactly as the encoding does', () => {
      for (const content of ['你好，世界！', 'こんにちは世界', '안녕하세요', 'naïve café — ½ €', 'launch 🚀🚀 👩‍💻 ❤️']) {
        expect(counter.countMessage({ role: 'user', content })).toBe(3 + text('user') + text(content));
      }
      expect(text('お誕生日おめでとう')).toBe(8);
    });
  });

  it('caches per message and encoding, ignoring SDK extras', () => {
    const cache = createTokenCache(LIMITS);
    const o200k = createTokenCounter({ encoding: 'o200k_base', cache });
    const cl100k = createTokenCounter({ encoding: 'cl100k_base', cache });
    const m: ChatMessage = { role: 'assistant', content: 'Sure.' };
    const first = o200k.countMessage(m);
    expect(cache.entries).toBe(1);
    expect(o200k.countMessage({ content: 'Sure.', role: 'assistant', refusal: null, annotations: [] })).toBe(first);
    expect(cache.entries).toBe(1);
    cl100k.countMessage(m);
    expect(cache.entries).toBe(2);
  });

  it('uses hashes the caller already has instead of hashing again', () => {
    const cache = createTokenCache(LIMITS);
    const counter = createTokenCounter({ encoding: 'o200k_base', cache });
    const hashes = COOKBOOK_MESSAGES.map((m) => messageHash(m));
    const withHashes = counter.countMessages(COOKBOOK_MESSAGES, hashes);
    expect(cache.entries).toBe(6);
    expect(counter.countMessages(COOKBOOK_MESSAGES)).toEqual(withHashes);
    expect(cache.entries).toBe(6);
    expect(withHashes.total).toBe(124);
  });

  it('serves a cached count instead of tokenizing again', async () => {
    const cache = createTokenCache(LIMITS);
    const counter = createTokenCounter({ encoding: 'o200k_base', cache });
    const m: ChatMessage = { role: 'user', content: 'hello' };
    cache.set(tokenCacheKey('o200k_base', m), 999);
    expect(counter.countMessage(m)).toBe(999);
    expect((await counter.countMessagesAsync([m])).perMessage).toEqual([999]);
  });
});

describe('countMessagesAsync', () => {
  const big = Object.values(SAMPLES).join('\n\n').repeat(60); // ~130 KB, ~35k tokens

  for (const encoding of ['o200k_base', 'cl100k_base', 'estimate'] as const) {
    it(`gives the same counts as countMessages for ${encoding}`, async () => {
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: big },
        { role: 'assistant', content: [{ type: 'text', text: big.slice(0, 50_000) }] },
      ];
      const sync = createTokenCounter({ encoding }).countMessages(messages);
      const sliced = await createTokenCounter({ encoding }).countMessagesAsync(messages);
      expect(sliced).toEqual(sync);
    });
  }

  // How long the loop waits behind a big message is a figure of the overhead bench (event loop
  // row); here, that it runs at all while one is counted, whatever the machine's load.
  it('lets the event loop run while a big message is tokenized', async () => {
    const counter = createTokenCounter({ encoding: 'o200k_base' });
    counter.countText('warm up the tokenizer');
    let turns = 0;
    let counting = true;
    const turn = () => {
      turns++;
      if (counting) setImmediate(turn);
    };
    setImmediate(turn);
    const counted = await counter.countMessagesAsync([{ role: 'user', content: big }]);
    counting = false;
    expect(turns).toBeGreaterThan(0);
    expect(counted.perMessage).toEqual(createTokenCounter({ encoding: 'o200k_base' }).countMessages([{ role: 'user', content: big }]).perMessage);
  });
});
