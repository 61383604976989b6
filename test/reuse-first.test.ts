import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationIdHash, conversationIdText, tenantOf } from '../src/conversation/identify.js';
import type { ConversationKey, ConversationRecord, Store } from '../src/store/store.js';
import { logPart } from './helpers/agent-task.js';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness, TEST_SECRET } from './helpers/harness.js';
import { recallCall, recallResults, toolNames } from './helpers/recall-task.js';
import { storeOperations } from './helpers/store-operations.js';

// A conversation past its trigger reuses one stored summary request after request: a request that
// provably has its previous request's view plus its new items goes upstream before it is counted
// or its record read (src/pipeline/reuse-first.ts), and what reaches the upstream is what planning
// it would have sent. A write of the record in this process, other bytes outside the messages,
// or a record another replica changed send the conversation back to planning first.

type Msg = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };
const MODEL = 'gpt-test-small';
// No room kept for a recall answer: the histories are sized against the whole budget.
const model = { ...smallModel(), recall: { answer_room_tokens: 0 } };
// An agent's model whose long tool results are cleared, never summarized, as its task grows.
const AGENT = 'gpt-test-agent';
const agentModel = { ...smallModel({}, { context_window: 9000, max_output_tokens: 1000 }), match: AGENT, recall: { enabled: false } };

let h: Harness;
beforeAll(async () => {
  // Without background preparation: every write of a record is the request path's own.
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, models: [model, agentModel], extra: { background: { enabled: false } } });
});
afterAll(async () => h?.close());

interface RequestLine {
  msg: string;
  forwardedFirst?: string;
  compaction?: string;
}

const requestLines = () => h.logs.lines.map((l) => JSON.parse(l) as RequestLine).filter((l) => l.msg === 'request');

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

/** The messages of the last request that reached the upstream. */
const lastForwarded = (): Msg[] => h.fake.chatRequests().at(-1)!.json.messages as Msg[];

type Route = 'chat' | 'responses';
const ROUTES: Record<Route, { path: string; items: string; forwarded: () => { body: string }[] }> = {
  chat: { path: '/v1/chat/completions', items: 'messages', forwarded: () => h.fake.chatRequests() },
  responses: { path: '/v1/responses', items: 'input', forwarded: () => h.fake.responsesRequests() },
};

async function send(conversation: string, messages: Msg[], extra: Record<string, unknown> = {}, route: Route = 'chat') {
  return sendTo(MODEL, conversation, messages, extra, route);
}

async function sendTo(modelName: string, conversation: string, messages: Msg[], extra: Record<string, unknown> = {}, route: Route = 'chat') {
  const lines = requestLines().length;
  const res = await fetch(`${h.recap.url}${ROUTES[route].path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-reuse-first', 'x-conversation-id': conversation },
    body: JSON.stringify({ model: modelName, [ROUTES[route].items]: messages, ...extra }),
  });
  const text = await res.text();
  await until(() => requestLines().length > lines);
  const figures = ['tokens-in', 'tokens-out', 'budget', 'recalls'].map((name) => res.headers.get(`x-recap-${name}`));
  const line = requestLines().at(-1)!;
  return { status: res.status, action: res.headers.get('x-recap-action'), figures, text, forwardedFirst: line.forwardedFirst, compaction: line.compaction };
}

/** A conversation grown turn by turn until it has reused its stored summary `reuses` times. */
async function pastItsTrigger(conversation: string, reuses: number, route: Route = 'chat'): Promise<{ history: Msg[]; turn: number; sent: Awaited<ReturnType<typeof send>>[] }> {
  const history: Msg[] = [{ role: 'system', content: 'You are an ops agent.' }];
  const sent: Awaited<ReturnType<typeof send>>[] = [];
  let turn = 0;
  while (sent.filter((s) => s.action === 'reused').length < reuses) {
    turn++;
    if (turn > 80) throw new Error(`${conversation} never reused its summary ${reuses} times`);
    history.push({ role: 'user', content: prose(turn, 40) });
    sent.push(await send(conversation, history, {}, route));
    history.push({ role: 'assistant', content: prose(100 + turn, 15) });
  }
  return { history, turn, sent };
}

/** The same request planned first: sent as if this process had written the conversation's record since. */
async function plannedFirst(conversation: string, messages: Msg[], route: Route, modelName = MODEL) {
  const writes = h.recap.runtime.records.writes;
  const writtenSince = writes.writtenSince;
  writes.writtenSince = () => true;
  try {
    return await sendTo(modelName, conversation, messages, {}, route);
  } finally {
    writes.writtenSince = writtenSince;
  }
}

/** Holds the store's record reads (whole, or the version alone) until `release`; `issued` has what `at()` said as each was issued, until `restore`. */
function holdReads(at: () => number): { release: () => void; restore: () => void; issued: number[] } {
  const store = h.recap.runtime.records.store;
  const { load, loadVersion } = store;
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const issued: number[] = [];
  store.load = (key: ConversationKey): Promise<ConversationRecord | null> => {
    issued.push(at());
    return gate.then(() => load.call(store, key));
  };
  store.loadVersion = (key: ConversationKey): Promise<number> => {
    issued.push(at());
    return gate.then(() => loadVersion.call(store, key));
  };
  return {
    issued,
    release: open,
    restore() {
      store.load = load;
      store.loadVersion = loadVersion;
      open();
    },
  };
}

describe('a reused request going upstream before its record is read', () => {
  it("forwards the previous view plus the new messages with the store's reads held, issuing none before it", async () => {
    const { history, turn, sent } = await pastItsTrigger('reuse-first-held', 2);
    // Both reuses went first: the compaction before them left its messages decided on the record it wrote.
    expect(sent.filter((s) => s.action === 'reused').map((s) => s.forwardedFirst)).toEqual(['reused', 'reused']);
    const before = lastForwarded();
    const added: Msg[] = [{ role: 'user', content: prose(turn + 1, 40) }];
    const forwarded = h.fake.chatRequests().length;
    const reads = holdReads(() => h.fake.chatRequests().length);
    try {
      const reply = send('reuse-first-held', [...history, ...added]);
      await until(() => h.fake.chatRequests().length > forwarded);
      reads.release();
      const result = await reply;
      expect(result).toMatchObject({ status: 200, action: 'reused', forwardedFirst: 'reused' });
      // Nothing was read as it arrived: its record's version alone, once the upstream had it.
      await until(() => reads.issued.length > 0);
      expect(reads.issued).toEqual([forwarded + 1]);
    } finally {
      reads.restore();
    }
    // The view of the request before (its summary, what it kept), then what this one added.
    expect(lastForwarded()).toEqual([...before, history.at(-1), ...added]);
  });

  it.each<Route>(['chat', 'responses'])('forwards the very bytes, and answers the very headers, that planning the request first does (%s)', async (route) => {
    const conversation = `reuse-first-bytes-${route}`;
    const { history, turn } = await pastItsTrigger(conversation, 2, route);
    history.push({ role: 'user', content: prose(turn + 1, 40) });
    const first = await send(conversation, history, {}, route);
    expect(first).toMatchObject({ action: 'reused', forwardedFirst: 'reused' });
    const went = ROUTES[route].forwarded().at(-1)!.body;
    const planned = await plannedFirst(conversation, history, route);
    expect(planned).toMatchObject({ action: 'reused', forwardedFirst: undefined });
    // Its tokens in and out, its budget and its recalls (none) are those planning it first answers.
    expect(first.figures).toEqual(planned.figures);
    expect(first.figures.every((f) => f !== null)).toBe(true);
    expect(ROUTES[route].forwarded().at(-1)!.body).toBe(went);
  });

  it.each<Route>(['chat', 'responses'])(
    'goes first when the new message has more bytes than the budget but its tokens fit: counted before it goes, with the bytes and headers planning it first gives (%s)',
    async (route) => {
      const conversation = `reuse-first-counted-${route}`;
      const { history, turn } = await pastItsTrigger(conversation, 2, route);
      // A pasted log's padding: 8,000 spaces are some 60 tokens, and more bytes than the whole budget.
      history.push({ role: 'user', content: `${prose(turn + 1, 10)}${' '.repeat(8000)}` });
      const first = await send(conversation, history, {}, route);
      expect(Number(first.figures[2])).toBeLessThan(8000);
      expect(first).toMatchObject({ status: 200, action: 'reused', forwardedFirst: 'reused' });
      const went = ROUTES[route].forwarded().at(-1)!.body;
      expect(went).toContain(' '.repeat(8000));
      const planned = await plannedFirst(conversation, history, route);
      expect(planned).toMatchObject({ action: 'reused', forwardedFirst: undefined });
      expect(first.figures).toEqual(planned.figures);
      expect(ROUTES[route].forwarded().at(-1)!.body).toBe(went);
      // The next request goes first on the decision this one took over.
      history.push({ role: 'assistant', content: prose(turn + 70, 15) }, { role: 'user', content: prose(turn + 71, 40) });
      expect(await send(conversation, history, {}, route)).toMatchObject({ action: 'reused', forwardedFirst: 'reused' });
      expect(h.logs.text).not.toContain('planned otherwise');
    },
  );

  it.each<Route>(['chat', 'responses'])(
    'goes first on a branch of the conversation (its last question asked otherwise), with the bytes and headers planning it first gives, and so does the next request on it (%s)',
    async (route) => {
      const conversation = `reuse-first-branch-${route}`;
      const { history, turn } = await pastItsTrigger(conversation, 2, route);
      // The last request was the history but its reply; the branch asks its last question otherwise.
      const branch = [...history.slice(0, -2), { role: 'user', content: prose(turn + 50, 40) }];
      const first = await send(conversation, branch, {}, route);
      expect(first).toMatchObject({ action: 'reused', forwardedFirst: 'reused' });
      const went = ROUTES[route].forwarded().at(-1)!.body;
      // The view it went with: the last one less the question taken away, then the new one.
      expect(went).toContain(branch.at(-1)!.content);
      expect(went).not.toContain(history.at(-2)!.content);
      branch.push({ role: 'assistant', content: prose(turn + 60, 15) }, { role: 'user', content: prose(turn + 61, 40) });
      // Its plan took the decision over: the next request on the branch goes first too.
      expect(await send(conversation, branch, {}, route)).toMatchObject({ action: 'reused', forwardedFirst: 'reused' });
      expect(h.logs.text).not.toContain('planned otherwise');
      const planned = await plannedFirst(conversation, branch.slice(0, -2), route);
      expect(planned).toMatchObject({ action: 'reused', forwardedFirst: undefined });
      expect(ROUTES[route].forwarded().at(-1)!.body).toBe(went);
      expect(first.figures).toEqual(planned.figures);
    },
  );

  it.each<Route>(['chat', 'responses'])('goes first on the request after the one that summarized, with the bytes and headers planning it first gives (%s)', async (route) => {
    const conversation = `reuse-first-after-summary-${route}`;
    const history: Msg[] = [{ role: 'system', content: 'You are an ops agent.' }];
    let compacted: Awaited<ReturnType<typeof send>> | undefined;
    for (let turn = 1; !compacted; turn++) {
      if (turn > 40) throw new Error(`${conversation} never compacted`);
      history.push({ role: 'user', content: prose(turn, 40) });
      const sent = await send(conversation, history, {}, route);
      if (sent.action === 'compacted') compacted = sent;
      history.push({ role: 'assistant', content: prose(100 + turn, 15) });
    }
    expect(compacted.compaction).toBe('summary');
    history.push({ role: 'user', content: prose(90, 40) });
    const first = await send(conversation, history, {}, route);
    expect(first).toMatchObject({ status: 200, action: 'reused', forwardedFirst: 'reused' });
    const went = ROUTES[route].forwarded().at(-1)!.body;
    const planned = await plannedFirst(conversation, history, route);
    expect(planned).toMatchObject({ action: 'reused', forwardedFirst: undefined });
    expect(first.figures).toEqual(planned.figures);
    expect(ROUTES[route].forwarded().at(-1)!.body).toBe(went);
    expect(h.logs.text).not.toContain('planned otherwise');
  });

  it("goes first on an agent's step after the one that cleared old tool results, with the bytes and headers planning it first gives", async () => {
    const conversation = 'reuse-first-after-clearing';
    const summaries = h.fake.summarizerRequests().length;
    const messages: Msg[] = [
      { role: 'system', content: 'You are an ops agent.' },
      { role: 'user', content: 'Read the deploy log part by part and report the root cause.' },
    ];
    const step = (k: number) => {
      const id = `call_${k}`;
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_log', arguments: JSON.stringify({ part: k % 8 }) } }] });
      messages.push({ role: 'tool', tool_call_id: id, content: logPart([0, 1, 8, 9][k % 4]!) });
    };
    let k = 0;
    for (let cleared = false; !cleared; k++) {
      if (k > 40) throw new Error('the task never cleared a tool result');
      step(k);
      const sent = await sendTo(AGENT, conversation, messages);
      cleared = sent.action === 'compacted';
      if (cleared) expect(sent.compaction).toBe('clearing');
    }
    step(k);
    const first = await sendTo(AGENT, conversation, messages);
    expect(first).toMatchObject({ status: 200, action: 'reused', forwardedFirst: 'reused' });
    const went = h.fake.chatRequests().at(-1)!.body;
    expect(went).toContain('[recap: tool result cleared');
    const planned = await plannedFirst(conversation, messages, 'chat', AGENT);
    expect(planned).toMatchObject({ action: 'reused', forwardedFirst: undefined });
    expect(first.figures).toEqual(planned.figures);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(went);
    expect(h.fake.summarizerRequests()).toHaveLength(summaries);
  });

  it('plans first when the new message is counted and does not fit beside the last view', async () => {
    const { history, turn } = await pastItsTrigger('reuse-first-counted-over', 2);
    const next = await send('reuse-first-counted-over', [...history, { role: 'user', content: prose(turn + 1, 1500) }]);
    expect(next.status).toBe(200);
    expect(next.forwardedFirst).toBeUndefined();
  });

  it('answers a recap_recall call in the reply of a request that went first', async () => {
    const { history, turn } = await pastItsTrigger('reuse-first-recall', 2);
    history.push({ role: 'user', content: prose(turn + 1, 40) });
    const forwarded = h.fake.chatRequests().length;
    h.fake.enqueue({ toolCalls: [recallCall({ query: history[1]!.content!.split(' ').slice(0, 3).join(' ') })] }, { model: MODEL });
    const result = await send('reuse-first-recall', history);
    expect(result).toMatchObject({ status: 200, action: 'reused', forwardedFirst: 'reused' });
    expect(result.figures[3]).toBe('1');
    expect(result.text).not.toContain('recap_recall');
    // The view it went with, then the continuation with recap's answer.
    const [went, continued] = h.fake.chatRequests().slice(forwarded);
    expect(toolNames(went!)).toContain('recap_recall');
    expect(recallResults(continued!)).toHaveLength(1);
    expect(h.fake.chatRequests()).toHaveLength(forwarded + 2);
  });

  it('plans first again after this process deleted the conversation, and forwards no summary of it', async () => {
    const { history, turn } = await pastItsTrigger('reuse-first-deleted', 2);
    const res = await fetch(`${h.recap.url}/recap/v1/conversations/reuse-first-deleted`, { method: 'DELETE', headers: { authorization: 'Bearer sk-reuse-first' } });
    expect(res.status).toBe(200);
    const next = await send('reuse-first-deleted', [...history, { role: 'user', content: prose(turn + 1, 40) }]);
    expect(next.forwardedFirst).toBeUndefined();
    expect(next.action).not.toBe('reused');
  });

  it('plans first when the bytes outside the messages changed', async () => {
    const { history, turn } = await pastItsTrigger('reuse-first-outside', 2);
    const next = await send('reuse-first-outside', [...history, { role: 'user', content: prose(turn + 1, 40) }], { temperature: 0.2 });
    expect(next).toMatchObject({ action: 'reused', forwardedFirst: undefined });
  });

  it('plans the request after one whose turn failed upstream', async () => {
    const { history, turn } = await pastItsTrigger('reuse-first-failed', 2);
    h.fake.enqueue({ status: 500, body: { error: { message: 'upstream down', type: 'server_error' } } }, { model: MODEL });
    history.push({ role: 'user', content: prose(turn + 1, 40) });
    const failed = await send('reuse-first-failed', history);
    expect(failed).toMatchObject({ status: 500, forwardedFirst: 'reused' });
    const next = await send('reuse-first-failed', history);
    expect(next).toMatchObject({ status: 200, action: 'reused', forwardedFirst: undefined });
  });

  // Another replica changes the record, which this process does not see happen: it forgets the
  // conversation, or writes it again (every write bumps the record's version, even one that leaves
  // the checkpoints as they were).
  const elsewhere = {
    forgets: (store: Store, key: ConversationKey) => store.delete(key),
    rewrites: (store: Store, key: ConversationKey) => store.updateCheckpoints(key, (checkpoints) => [...checkpoints]),
  };
  it.each(Object.entries(elsewhere))('plans the request after one that found its record changed by another replica (it %s it)', async (how, change) => {
    const conversation = `reuse-first-replica-${how}`;
    const { history, turn } = await pastItsTrigger(conversation, 2);
    const tenant = tenantOf({ authorization: 'Bearer sk-reuse-first' }, TEST_SECRET);
    const key = { tenant, conversation: conversationIdHash(tenant, conversationIdText(conversation), TEST_SECRET) };
    const { store } = h.recap.runtime.records;
    const before = await store.loadVersion(key);
    await change(store, key);
    expect(await store.loadVersion(key)).not.toBe(before);
    history.push({ role: 'user', content: prose(turn + 1, 40) });
    // At most the next request goes on what was read before; its own read, once its reply is out, finds the record changed.
    const reads = await storeOperations(h.recap, 'load_version');
    const stale = await send(conversation, history);
    expect(stale).toMatchObject({ action: 'reused', forwardedFirst: 'reused' });
    while ((await storeOperations(h.recap, 'load_version')) <= reads) await new Promise((r) => setTimeout(r, 5));
    history.push({ role: 'assistant', content: prose(200, 15) }, { role: 'user', content: prose(turn + 2, 40) });
    const next = await send(conversation, history);
    expect(next.forwardedFirst).toBeUndefined();
    if (how === 'forgets') expect(next.action).not.toBe('reused');
  });

  it('reads the version alone after a reply that went first, and goes first again while it stands', async () => {
    const { history, turn } = await pastItsTrigger('reuse-first-versions', 2);
    const loads = await storeOperations(h.recap, 'load');
    const versions = await storeOperations(h.recap, 'load_version');
    for (let k = 1; k <= 3; k++) {
      history.push({ role: 'user', content: prose(turn + k, 40) });
      expect(await send('reuse-first-versions', history)).toMatchObject({ action: 'reused', forwardedFirst: 'reused' });
      while ((await storeOperations(h.recap, 'load_version')) < versions + k) await new Promise((r) => setTimeout(r, 5));
      history.push({ role: 'assistant', content: prose(300 + k, 15) });
    }
    // No whole record was read for them.
    expect(await storeOperations(h.recap, 'load')).toBe(loads);
  });
});
