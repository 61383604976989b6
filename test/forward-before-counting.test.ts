import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';
import { storeOperations } from './helpers/store-operations.js';

// A request whose history recap counted before goes upstream before it is counted when the exact
// counts of what it knows and the bytes of what is new prove it fits (issue 28): below both lines
// nothing more happens; past the prepare line the plan still runs after forwarding, so the record
// is read and the next checkpoint prepared in the background (rule 10), and what reaches the
// upstream is the client's bytes either way.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';
// The histories below are sized against the lines of a budget with no room kept for a recall
// answer (recall.answer_room_tokens lowers the line of views that carry recap_recall).
const model = { ...smallModel({ prepare_ratio: 0.6 }), recall: { answer_room_tokens: 0 } };

let h: Harness;
// Without background preparation: the store reads counted are the request path's own.
let quiet: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, models: [model] });
  quiet = await startHarness({ fake: { summarizerModel: SUMMARIZER }, models: [model], extra: { background: { enabled: false } } });
});
afterAll(async () => {
  await h?.close();
  await quiet?.close();
});

interface RequestLine {
  msg: string;
  forwardedFirst?: string;
}

function lastRequestLine(on: Harness): RequestLine {
  return on.logs.lines
    .map((l) => JSON.parse(l) as RequestLine)
    .filter((l) => l.msg === 'request')
    .at(-1)!;
}

function requestLines(on: Harness): number {
  return on.logs.lines.filter((l) => (JSON.parse(l) as RequestLine).msg === 'request').length;
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

const loads = (on: Harness) => storeOperations(on.recap, 'load');

type Route = 'chat' | 'responses';
const ROUTES: Record<Route, { path: string; forwarded: (on: Harness) => { body: string }[] }> = {
  chat: { path: '/v1/chat/completions', forwarded: (on) => on.fake.chatRequests() },
  responses: { path: '/v1/responses', forwarded: (on) => on.fake.responsesRequests() },
};

async function send(on: Harness, conversation: string, messages: Msg[]) {
  return sendBody(on, conversation, 'chat', JSON.stringify({ model: MODEL, messages }));
}

async function sendBody(on: Harness, conversation: string, route: Route, body: string) {
  const before = { loads: await loads(on), forwarded: ROUTES[route].forwarded(on).length, lines: requestLines(on) };
  const res = await fetch(`${on.recap.url}${ROUTES[route].path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-key', 'x-conversation-id': conversation },
    body,
  });
  await res.text();
  // The request's log line is written once its plan ran after the reply (past the prepare line).
  await until(() => requestLines(on) > before.lines);
  await on.recap.runtime.background.idle();
  const forwarded = ROUTES[route]
    .forwarded(on)
    .slice(before.forwarded)
    .map((r) => r.body);
  return { status: res.status, action: res.headers.get('x-recap-action'), line: lastRequestLine(on), reads: (await loads(on)) - before.loads, forwarded, body };
}

/** A history just below the prepare line, then the same history and a short question past it. */
function histories(): [Msg[], Msg[]] {
  const history: Msg[] = [{ role: 'system', content: 'You are an ops agent.' }];
  for (let turn = 1; turn <= 6; turn++) history.push({ role: 'user', content: prose(turn, 150) }, { role: 'assistant', content: prose(100 + turn, 60) });
  return [history, [...history, { role: 'user', content: prose(7, 80) }]];
}

describe('forwarding a known history before counting it', () => {
  it('forwards past the prepare line as sent, then reads the record once', async () => {
    const [history, next] = histories();
    // First sight of the history: its bytes prove nothing, it is counted first.
    const first = await send(quiet, 'reads', history);
    expect(first.line.forwardedFirst).toBeUndefined();
    // Known counts plus the question's bytes prove it below the trigger; past the prepare line (0.6 here).
    const second = await send(quiet, 'reads', next);
    expect(second.line.forwardedFirst).toBe('below the trigger');
    expect(second).toMatchObject({ status: 200, action: 'none', reads: 1 });
    expect(second.forwarded).toEqual([second.body]);
  });

  it('still prepares the next checkpoint in the background (rule 10)', async () => {
    const [history, next] = histories();
    await send(h, 'prepares', history);
    expect(h.fake.summarizerRequests()).toHaveLength(0);
    const second = await send(h, 'prepares', next);
    expect(second.line.forwardedFirst).toBe('below the trigger');
    expect(second).toMatchObject({ status: 200, action: 'none' });
    expect(second.forwarded).toEqual([second.body]);
    expect(h.fake.summarizerRequests()).toHaveLength(1);
    const stored = await fetch(`${h.recap.url}/recap/v1/conversations/prepares`, { headers: { authorization: 'Bearer sk-test-key' } });
    expect(((await stored.json()) as { checkpoints: unknown[] }).checkpoints.length).toBeGreaterThan(0);
  });

  it('once the next checkpoint is prepared, reads no record for a request that adds less than the room left below the line', async () => {
    const [history, next] = histories();
    await send(h, 'room', history);
    const prepared = await send(h, 'room', next);
    expect(prepared.reads).toBeGreaterThan(0);
    expect(h.fake.summarizerRequests().length).toBeGreaterThan(0);
    // The look after this reply finds the prepared checkpoint: its view is far below the line.
    const looked = await send(h, 'room', [...next, { role: 'assistant', content: 'Checking.' }, { role: 'user', content: 'Go on.' }]);
    expect(looked).toMatchObject({ status: 200, action: 'none' });
    const later = await send(h, 'room', [
      ...next,
      { role: 'assistant', content: 'Checking.' },
      { role: 'user', content: 'Go on.' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Thanks.' },
    ]);
    expect(later.line.forwardedFirst).toBe('below the trigger');
    expect(later).toMatchObject({ status: 200, action: 'none', reads: 0 });
    expect(later.forwarded).toEqual([later.body]);
    // Another branch of the conversation is no extension of what was looked at: it is looked at again.
    const branch = await send(h, 'room', [...next, { role: 'assistant', content: 'Elsewhere.' }, { role: 'user', content: 'Go on.' }]);
    expect(branch.reads).toBeGreaterThan(0);
  });

  it('forwards a known history below both lines without reading the store', async () => {
    const history: Msg[] = [
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: prose(40, 200) },
    ];
    await send(quiet, 'below', history);
    history.push({ role: 'assistant', content: 'Noted.' }, { role: 'user', content: 'And the refund?' });
    const known = await send(quiet, 'below', history);
    expect(known.line.forwardedFirst).toBe('below both lines');
    expect(known).toMatchObject({ status: 200, action: 'none', reads: 0 });
    expect(known.forwarded).toEqual([known.body]);
  });
});

describe('forwarding a known Responses history before counting it', () => {
  // Codex's and the Agents SDK's shape: instructions apart, typed items, tool calls and their outputs.
  const tools = [{ type: 'function', name: 'read_file', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
  const body = (input: unknown[]) => JSON.stringify({ model: MODEL, instructions: 'You are a coding agent. Answer briefly.', input, tools });
  const opening = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: prose(41, 120) }] },
    { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"src/app.ts"}' },
    { type: 'function_call_output', call_id: 'call_1', output: prose(42, 150) },
  ];

  it("forwards below both lines without reading the store, the client's bytes as sent", async () => {
    const first = await sendBody(quiet, 'responses-below', 'responses', body(opening));
    expect(first.line.forwardedFirst).toBeUndefined();
    const next = [...opening, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It exports the app.' }] }, { role: 'user', content: 'And the tests?' }];
    const known = await sendBody(quiet, 'responses-below', 'responses', body(next));
    expect(known.line.forwardedFirst).toBe('below both lines');
    expect(known).toMatchObject({ status: 200, action: 'none', reads: 0 });
    expect(known.forwarded).toEqual([known.body]);
  });

  it('counts first an image it did not count before', async () => {
    await sendBody(quiet, 'responses-image', 'responses', body(opening));
    const image = { type: 'message', role: 'user', content: [{ type: 'input_image', image_url: 'https://example.test/a.png', detail: 'high' }] };
    const withImage = await sendBody(quiet, 'responses-image', 'responses', body([...opening, image]));
    expect(withImage.line.forwardedFirst).toBeUndefined();
    expect(withImage.forwarded).toEqual([withImage.body]);
  });
});
