import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from '../helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// A field that should hold a string may hold anything JSON has: a number, an array, or an object
// whose `toString` is not a function (`{"toString":1}`), on which String() and template literals
// throw. Wherever recap reads such a field (hashing, token counting, transcript and template,
// ledger, redaction, the Responses items' mapping), the request is forwarded for the upstream to
// judge, or refused with a 400 before anything is forwarded: never a 500, and never one after the
// body was already forwarded (an unconfigured model's is, before recap counts it). Compacted with a
// summary and with the template, the field in the evicted part and in the kept one.

const UNCONFIGURED = 'other-model';
const SMALL = 'gpt-test-small';
const TEMPLATE = 'gpt-test-template';
const POISON = [{ toString: 1 }, 5, ['a', 'b']];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [smallModel(), { ...smallModel({ strategy: 'template' }), match: TEMPLATE }],
  });
});
afterAll(async () => h?.close());

type Value = unknown;
/** Chat messages (or whole-body fields) with `p` where a string belongs. */
const CHAT: Record<string, (p: Value) => { messages?: object[]; top?: object }> = {
  'a message name': (p) => ({ messages: [{ role: 'user', name: p, content: 'named' }] }),
  'a tool_call_id': (p) => ({
    messages: [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: p, content: 'done' },
    ],
  }),
  'a tool result name': (p) => ({
    messages: [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_2', name: p, content: 'done' },
    ],
  }),
  'a tool call id, type, name and arguments': (p) => ({
    messages: [
      { role: 'assistant', content: null, tool_calls: [{ id: p, type: p, function: { name: p, arguments: p } }] },
      { role: 'tool', tool_call_id: 'x', content: 'done' },
    ],
  }),
  'a legacy function_call and function result': (p) => ({
    messages: [
      { role: 'assistant', content: null, function_call: { name: p, arguments: p } },
      { role: 'function', name: p, content: 'ok' },
    ],
  }),
  'a content part type': (p) => ({ messages: [{ role: 'user', content: [{ type: p, text: 'look' }] }] }),
  'a content part text and image url': (p) => ({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: p },
          { type: 'image_url', image_url: { url: p, detail: p } },
          { type: 'input_audio', input_audio: { data: p, format: p } },
          { type: 'file', file: { file_data: p, filename: p } },
        ],
      },
    ],
  }),
  'an assistant refusal and audio': (p) => ({ messages: [{ role: 'assistant', content: null, refusal: p, audio: { id: p } }] }),
  'tool and function definitions': (p) => ({
    top: {
      tools: [{ type: p, function: { name: p, description: p, parameters: { type: p, properties: { a: { type: p, description: p, enum: [p] } } } } }],
      functions: [{ name: p, description: p }],
    },
  }),
  'top-level fields': (p) => ({ top: { max_tokens: p, max_completion_tokens: p, user: p, tool_choice: p, response_format: { type: p }, stream_options: p } }),
};

/** Responses input items (or whole-body fields) with `p` where a string belongs. */
const RESPONSES: Record<string, (p: Value) => { input?: object[]; top?: object }> = {
  'an item type': (p) => ({ input: [{ type: p, role: 'user', content: 'typed' }] }),
  'an item type with a call_id': (p) => ({ input: [{ type: p, call_id: 'c9', output: 'x' }] }),
  'a content part type': (p) => ({ input: [{ type: 'message', role: 'user', content: [{ type: p, text: 'look' }] }] }),
  'a content part text and image url': (p) => ({
    input: [
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: p },
          { type: 'input_image', image_url: p, detail: p },
        ],
      },
    ],
  }),
  'a message role': (p) => ({ input: [{ type: 'message', role: p, content: 'who' }] }),
  'a function call and its output': (p) => ({
    input: [
      { type: 'function_call', call_id: p, name: p, arguments: p, id: p, status: p },
      { type: 'function_call_output', call_id: p, output: p },
    ],
  }),
  'a custom tool call and its output': (p) => ({
    input: [
      { type: 'custom_tool_call', call_id: 'cc1', name: p, input: p },
      { type: 'custom_tool_call_output', call_id: 'cc1', output: p },
    ],
  }),
  'a reasoning item': (p) => ({ input: [{ type: 'reasoning', id: p, summary: [{ type: p, text: p }], encrypted_content: p }] }),
  'an approval request and response': (p) => ({
    input: [
      { type: 'mcp_approval_request', id: p, name: p, arguments: p, server_label: p },
      { type: 'mcp_approval_response', approval_request_id: p, approve: p },
    ],
  }),
  'top-level fields': (p) => ({ top: { instructions: p, max_output_tokens: p, tools: [{ type: p, name: p, parameters: p }], text: { format: { type: p } }, tool_choice: p } }),
};

async function post(path: string, body: object) {
  const res = await fetch(`${h.recap.url}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-poison', 'x-conversation-id': `poison-${Math.random()}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The upstream's reply as it sent it (its own judgement of the body), or recap's own 400 before anything went upstream. */
async function expectForwardedOr400(path: string, body: object): Promise<void> {
  const before = h.fake.requests.length;
  const res = await post(path, body);
  const forwarded = h.fake.requests.slice(before).filter((r) => r.json?.model !== SUMMARIZER);
  if (forwarded.length === 0) {
    expect(res.status, res.text).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ error: { type: 'invalid_request_error' } });
  } else {
    expect(forwarded).toHaveLength(1);
    expect(res.text).toBe(h.fake.sentBytes(forwarded[0]!).toString('utf8'));
  }
}

const history = overBudgetHistory();

describe.each(POISON.map((p) => [JSON.stringify(p), p] as const))('%s where a string belongs', (_name, p) => {
  afterAll(() => {
    // Where recap failed, if it did: the frames that threw, once each.
    const failures = h.logs.lines
      .filter((l) => l.includes('"msg":"request failed"'))
      .map((l) => (JSON.parse(l) as { err: { stack: string } }).err.stack.split('\n').slice(0, 4).join(' | '));
    expect([...new Set(failures)]).toEqual([]);
  });

  describe.each(Object.entries(CHAT))('chat: in %s', (_case, place) => {
    const { messages = [], top = {} } = place(p);
    it('unconfigured (forwarded before it is counted): forwarded or 400, never 500', async () => {
      await expectForwardedOr400('/chat/completions', { model: UNCONFIGURED, ...top, messages: [...history.slice(0, -1), ...messages, history.at(-1)] });
    });
    it.each([
      [SMALL, 'old'],
      [SMALL, 'recent'],
      [TEMPLATE, 'old'],
    ])('%s, in the %s part: forwarded or 400, never 500', async (model, where) => {
      const all = where === 'old' ? [history[0], history[1], ...messages, ...history.slice(2)] : [...history.slice(0, -1), ...messages, history.at(-1)];
      await expectForwardedOr400('/chat/completions', { model, ...top, messages: all });
    });
  });

  describe.each(Object.entries(RESPONSES))('responses: in %s', (_case, place) => {
    const { input = [], top = {} } = place(p);
    it('unconfigured (forwarded before it is counted): forwarded or 400, never 500', async () => {
      await expectForwardedOr400('/responses', { model: UNCONFIGURED, store: false, ...top, input: [...history.slice(0, -1), ...input, history.at(-1)] });
    });
    it.each([
      [SMALL, 'old'],
      [SMALL, 'recent'],
      [TEMPLATE, 'old'],
    ])('%s, in the %s part: forwarded or 400, never 500', async (model, where) => {
      const all = where === 'old' ? [history[0], history[1], ...input, ...history.slice(2)] : [...history.slice(0, -1), ...input, history.at(-1)];
      await expectForwardedOr400('/responses', { model, store: false, ...top, input: all });
    });
  });
});
