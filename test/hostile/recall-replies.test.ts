import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countRequest } from '../../src/tokens/count-request.js';
import { type Harness, SUMMARIZER, startHarness } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';
import { answerFromRecall, marker, RECALL_MODEL, recallCall, recallModel, recallResults, taskHistory } from '../helpers/recall-task.js';

// Replies to a request offered recap_recall that an upstream (or a model) gets wrong on purpose:
// a continuation that is not JSON (B23), thousands of parallel recall calls in one reply (B24),
// recall calls whose id is a number, null or missing (B25), a reply that names recap_recall only
// through `\u` escapes. The client gets the reply as the upstream sent it or recap's clear error,
// never a 500, never a recap_recall call; continuations stay within the budget; one log line per reply.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [recallModel()] });
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.fake.reset();
  answerFromRecall(h.fake);
});

async function ask(conversation: string, steps = 12) {
  const r = await rawRequest(h.recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-test-key', 'x-conversation-id': conversation },
    body: { model: RECALL_MODEL, messages: taskHistory(conversation, steps) },
  });
  return { status: r.status, body: r.body, bytes: r.bytes, headers: r.headers };
}

const completion = (message: Record<string, unknown>) =>
  JSON.stringify({
    id: 'chatcmpl-x',
    object: 'chat.completion',
    created: 1,
    model: RECALL_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'tool_calls' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });

describe('a continuation the upstream answers with a body that is not JSON (B23)', () => {
  it('reaches the client as the upstream sent it, never as a 500', async () => {
    for (const body of ['this is not json', '[1, 2]', '{"choices": [', '"a string"']) {
      h.fake.enqueue({ toolCalls: [recallCall({ query: 'MARKER' })] });
      h.fake.enqueue({ body, headers: { 'content-type': 'application/json' } });
      const r = await ask('b23');
      expect(r.status, body).toBe(200);
      expect(r.body).toBe(body);
    }
  });
});

describe('many parallel recall calls in one reply (B24)', () => {
  it('keep the continuation within the budget, answer the calls past what fits with one short note, and log one line per reply', async () => {
    for (const calls of [50, 2_000]) {
      const before = h.logs.text.split('\n').filter((l) => l.includes('recap_recall')).length;
      h.fake.enqueue({ toolCalls: Array.from({ length: calls }, (_, i) => recallCall(i % 2 ? { query: marker('b24', i % 12) } : 'not json')) });
      const r = await ask('b24');
      expect(r.status).toBe(200);
      expect(r.body).not.toContain('recap_recall');
      const continuation = h.fake.chatRequests()[1]!;
      const budget = Number(r.headers['x-recap-budget']);
      const counted = countRequest(continuation.json, undefined);
      // The forwarded continuation fits the budget the first request was planned against.
      expect(counted.prompt_tokens).toBeLessThanOrEqual(budget);
      const results = recallResults(continuation);
      expect(results.length).toBeGreaterThan(0);
      expect(results.length).toBeLessThanOrEqual(16);
      expect(results.at(-1)).toContain(`${calls - results.length} more recap_recall calls were in this reply and not answered`);
      const lines = h.logs.text.split('\n').filter((l) => l.includes('recap_recall'));
      expect(lines.length - before).toBe(1);
      h.fake.reset();
      answerFromRecall(h.fake);
    }
  });
});

describe('recall calls with a number, null or no id (B25)', () => {
  it('are recap’s to answer: the client never sees one', async () => {
    for (const id of [7, null, undefined, '']) {
      const call = { ...(id === undefined ? {} : { id }), type: 'function', function: { name: 'recap_recall', arguments: JSON.stringify({ query: marker('b25', 1) }) } };
      h.fake.enqueue({ body: completion({ content: null, tool_calls: [call] }), headers: { 'content-type': 'application/json' } });
      const r = await ask('b25');
      expect(r.status, String(id)).toBe(200);
      expect(r.body).not.toContain('recap_recall');
      expect(JSON.parse(r.body).choices[0].message.content).toBe(`The id is ${marker('b25', 1)}.`);
      const continuation = h.fake.chatRequests().at(-1)!;
      const assistant = continuation.json.messages.at(-2);
      const result = continuation.json.messages.at(-1);
      expect(typeof assistant.tool_calls[0].id).toBe('string');
      expect(result.tool_call_id).toBe(assistant.tool_calls[0].id);
      h.fake.reset();
      answerFromRecall(h.fake);
    }
  });
});

describe('a whole reply, read for recap_recall calls', () => {
  const raw = (message: string, finish = 'stop') =>
    `{"id":"chatcmpl-raw" ,"object":"chat.completion","created":1,"model":"${RECALL_MODEL}","choices":[{"index":0,"message":${message},"finish_reason":"${finish}"}],` +
    `"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"x":1e400,"x":-0}`;

  it('that does not call it reaches the client byte for byte, whatever JSON would make of its bytes', async () => {
    const bodies = [
      // Neither the name nor a `\u` escape in its bytes.
      raw('{"role":"assistant","content":"café ✓ line\\nnext, \\"quoted\\", a\\\\b"}'),
      raw('{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"a.ts\\"}"}}]}', 'tool_calls'),
      // `\u` escapes, and the name in its text: no call of it still.
      raw('{"role":"assistant","content":"caf\\u00e9 \\u2713, not a call of recap_recall"}'),
    ];
    for (const body of bodies) {
      h.fake.reset();
      h.fake.enqueue({ body, headers: { 'content-type': 'application/json' } });
      const r = await ask('raw-none');
      expect(r.status).toBe(200);
      expect(h.fake.chatRequests()).toHaveLength(1);
      expect(h.fake.chatRequests()[0]!.body).toContain('recap_recall');
      expect(r.bytes.equals(Buffer.from(body)), body).toBe(true);
      expect(r.headers['x-recap-recalls']).toBe('0');
    }
  });

  it('that names it only through `\\u` escapes is answered as a recall call', async () => {
    for (const name of ['recap\\u005frecall', '\\u0072ecap_recal\\u006C', [...'recap_recall'].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')]) {
      h.fake.reset();
      answerFromRecall(h.fake);
      const call = `{"id":"call_esc","type":"function","function":{"name":"${name}","arguments":${JSON.stringify(JSON.stringify({ query: marker('esc', 1) }))}}}`;
      h.fake.enqueue({ body: raw(`{"role":"assistant","content":null,"tool_calls":[${call}]}`, 'tool_calls'), headers: { 'content-type': 'application/json' } });
      const r = await ask('esc');
      expect(r.status, name).toBe(200);
      expect(JSON.parse(r.body).choices[0].message.content).toBe(`The id is ${marker('esc', 1)}.`);
      expect(r.body).not.toContain('call_esc');
      const continuation = h.fake.chatRequests()[1]!;
      expect(continuation.json.messages.at(-2).tool_calls[0]).toMatchObject({ id: 'call_esc', function: { name: 'recap_recall' } });
      expect(recallResults(continuation)).toEqual([expect.stringContaining(marker('esc', 1))]);
    }
  });
});

describe('a client tool whose name is a prefix of recap_recall, in a stream that breaks off (B26)', () => {
  it('reaches the client as its own bytes, not as recap’s error', async () => {
    for (const name of ['recap', 're']) {
      h.fake.enqueue({ toolCalls: [{ name, arguments: '{"path":"src/a.ts"}' }], sseError: { message: 'upstream overloaded', type: 'server_error' } });
      const tool = { type: 'function', function: { name, parameters: { type: 'object', properties: { path: { type: 'string' } } } } };
      const r = await rawRequest(h.recap.url, {
        target: '/v1/chat/completions',
        headers: { authorization: 'Bearer sk-test-key', 'x-conversation-id': `b26-${name}` },
        body: { model: RECALL_MODEL, messages: taskHistory(`b26${name}`, 12), tools: [tool], stream: true },
      });
      expect(r.status).toBe(200);
      expect(h.fake.chatRequests().at(-1)!.body).toContain('recap_recall');
      expect(r.body, name).toContain(`"name":"${name}"`);
      expect(r.body).toContain('upstream overloaded');
      expect(r.body).not.toContain('upstream_stream_failed');
    }
  });
});
