import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory, prose } from '../helpers/conversation.js';
import { expectOpenAIError } from '../helpers/error-shape.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// Chat bodies as clients get them wrong or merely unusual. recap is a transparent proxy: what the
// upstream may accept (new roles, new part types, empty lists) is forwarded byte for byte and
// judged there; only what recap itself cannot walk (not JSON, no messages array, a message that is
// not an object with a role, content or tool_calls of a shape it cannot read) is refused by recap,
// in OpenAI's error shape, before anything reaches the upstream.

const PLAIN = 'gpt-test-plain'; // no compaction: the client's bytes must arrive unchanged
const SMALL = 'gpt-test-small'; // compacts above ~2,700 tokens

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [{ match: PLAIN }, smallModel()],
  });
});
afterAll(async () => h.close());

async function post(body: string, conversation = 'bad-bodies') {
  const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bodies', 'x-conversation-id': conversation },
    body,
  });
  return { status: res.status, action: res.headers.get('x-recap-action'), tokensIn: Number(res.headers.get('x-recap-tokens-in')), text: await res.text() };
}

type Msg = Record<string, unknown>;

describe('refused by recap, nothing forwarded', () => {
  const message = (m: unknown) => JSON.stringify({ model: PLAIN, messages: [m] });
  it.each([
    ['invalid JSON', 'invalid_json', null, '{"model": "gpt-test-plain", "messages": ['],
    ['an empty body', 'invalid_json', null, ''],
    ['a JSON array', 'invalid_request', null, '[]'],
    ['no model', 'invalid_request', 'model', JSON.stringify({ messages: [] })],
    ['messages missing', 'invalid_request', 'messages', JSON.stringify({ model: PLAIN })],
    ['messages a string', 'invalid_request', 'messages', JSON.stringify({ model: PLAIN, messages: 'hello' })],
    ['messages an object', 'invalid_request', 'messages', JSON.stringify({ model: PLAIN, messages: { role: 'user' } })],
    ['a message that is null', 'invalid_request', 'messages[0]', message(null)],
    ['a message without a role', 'invalid_request', 'messages[0]', message({ content: 'hi' })],
    ['a numeric role', 'invalid_request', 'messages[0]', message({ role: 1, content: 'hi' })],
    ['content a number', 'invalid_request', 'messages[0].content', message({ role: 'user', content: 42 })],
    ['content an object', 'invalid_request', 'messages[0].content', message({ role: 'user', content: { text: 'hi' } })],
    ['a content part that is null', 'invalid_request', 'messages[0].content', message({ role: 'user', content: [null] })],
    ['a content part that is a string', 'invalid_request', 'messages[0].content', message({ role: 'user', content: ['hi'] })],
    ['tool_calls an object', 'invalid_request', 'messages[0].tool_calls', message({ role: 'assistant', tool_calls: { id: 'c1' } })],
    ['a tool call that is null', 'invalid_request', 'messages[0].tool_calls', message({ role: 'assistant', tool_calls: [null] })],
  ])('%s → 400 %s', async (_name, code, param, body) => {
    const before = h.fake.requests.length;
    const res = await post(body);
    expect(res.status).toBe(400);
    expectOpenAIError(res.text, code, param);
    expect(h.fake.requests.length).toBe(before);
  });

  it('surfaces as the SDK’s BadRequestError', async () => {
    const client = new OpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: 'sk-bodies', maxRetries: 0 });
    const err = await client.chat.completions.create({ model: PLAIN, messages: 'nope' as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_request');
  });
});

// Every documented message and part kind, plus what only the upstream can judge.
const unusual: Record<string, Msg[]> = {
  'empty messages': [],
  'unknown roles': [
    { role: 'critic', content: 'hmm' },
    { role: 'user', content: 'go on' },
  ],
  'null content': [
    { role: 'user', content: null },
    { role: 'assistant', content: null },
    { role: 'user', content: 'and?' },
  ],
  'every content part kind': [
    { role: 'developer', content: [{ type: 'text', text: 'be brief' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look and listen' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        { type: 'file', file: { file_id: 'file-abc123' } },
        { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
        { type: 'some_future_part', payload: { x: 1 } },
      ],
    },
    { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] },
    { role: 'user', content: 'fine, what is the weather?' },
  ],
  'tool calls and tool messages': [
    { role: 'user', content: 'weather in Paris and Oslo?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
    { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '{"temp":9}' }] },
  ],
  'legacy function role and function_call': [
    { role: 'user', content: 'weather?' },
    { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
    { role: 'function', name: 'get_weather', content: '{"temp":25}' },
  ],
  'odd but walkable fields': [
    { role: 'user', name: 5, content: [{ type: 5 }, { text: 5 }, { type: 'image_url', image_url: null }, { type: 'text', text: null }] },
    { role: 'assistant', tool_calls: [{}, { function: 5 }, { function: { name: 5, arguments: {} } }], function_call: 'x' },
    { role: 'tool', tool_call_id: 7, content: 'r' },
  ],
};

describe('forwarded as sent', () => {
  it.each(Object.entries(unusual))('%s: the upstream receives the client’s bytes', async (name, messages) => {
    const body = JSON.stringify({ model: PLAIN, messages, temperature: 0 });
    const res = await post(body, name);
    expect(res.status).toBe(200);
    expect(res.action).toBe('none');
    expect(h.fake.chatRequests().at(-1)!.body).toBe(body);
  });

  it.each(Object.entries(unusual))('%s: compacts without error behind a long history', async (name, messages) => {
    // 30 rounds of history (without its closing question); the unusual messages follow its last answer.
    const sent = [...overBudgetHistory().slice(0, -1), ...messages, { role: 'user', content: 'summing up?' }];
    const res = await post(JSON.stringify({ model: SMALL, messages: sent }), `compact ${name}`);
    expect(res.status).toBe(200);
    expect(res.action).toBe('compacted');
    const forwarded = h.fake.chatRequests().at(-1)!.json.messages as Msg[];
    expect(forwarded.length).toBeLessThan(sent.length);
    // The newest round is kept verbatim, whatever kinds it holds.
    expect(forwarded.at(-1)).toEqual(sent.at(-1));
  });

  it('forwards 10,000 messages byte for byte, and compacts them', async () => {
    const messages = Array.from({ length: 10_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }));
    const body = JSON.stringify({ model: PLAIN, messages });
    const plain = await post(body, 'ten-thousand');
    expect(plain.status).toBe(200);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(body);

    const compacting = await post(JSON.stringify({ model: SMALL, messages: [...messages, { role: 'user', content: 'and now?' }] }), 'ten-thousand-small');
    expect(compacting.status).toBe(200);
    expect(compacting.action).toBe('compacted');
    expect((h.fake.chatRequests().at(-1)!.json.messages as Msg[]).length).toBeLessThan(1000);
  });

  it('forwards a single 5 MB message byte for byte, alone over any budget', async () => {
    const content = prose(1, 1000)
      .repeat(Math.ceil(5e6 / prose(1, 1000).length))
      .slice(0, 5e6);
    const body = JSON.stringify({ model: PLAIN, messages: [{ role: 'user', content }] });
    const res = await post(body, 'five-mb');
    expect(res.status).toBe(200);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(body);

    // Over the small model's budget on its own: the newest round is never cut (rule 1).
    const small = JSON.stringify({ model: SMALL, messages: [{ role: 'user', content }] });
    const alone = await post(small, 'five-mb-small');
    expect(alone.status).toBe(200);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(small);
  });

  it('counts a 5 MB message that is one word without holding recap', async () => {
    const body = JSON.stringify({ model: SMALL, messages: [{ role: 'user', content: 'x'.repeat(5e6) }] });
    const finished: string[] = [];
    // Sent as a stream: once its last chunk is taken, recap has the body (less the socket buffers) in hand.
    let sent!: () => void;
    const taken = new Promise<void>((resolve) => (sent = resolve));
    const bytes = Buffer.from(body);
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) {
          controller.close();
          sent();
          return;
        }
        controller.enqueue(bytes.subarray(at, (at += 1 << 16)));
      },
    });
    const big = fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bodies', 'x-conversation-id': 'one-word' },
      body: stream,
      duplex: 'half',
    } as RequestInit).then(async (r) => (finished.push('big'), { status: r.status, tokensIn: Number(r.headers.get('x-recap-tokens-in')), text: await r.text() }));
    await taken;
    const small = await post(JSON.stringify({ model: PLAIN, messages: [{ role: 'user', content: 'hi' }] }), 'meanwhile');
    finished.push('small');
    const res = await big;
    expect(small.status).toBe(200);
    expect(finished).toEqual(['small', 'big']);
    expect(res.status).toBe(200);
    // Counted by BPE (several letters a token), far over budget; the newest round is forwarded whole.
    expect(res.tokensIn).toBeGreaterThan(5e6 / 32);
    expect(res.tokensIn).toBeLessThan(5e6);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(body);
  });
});
