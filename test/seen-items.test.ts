import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';

// Items a recap process parsed before are taken from its cache of seen items (src/seen/), not
// parsed, hashed or counted again. That must change nothing a user can see: the same requests,
// sent to a recap with the cache and to one without it (tokens.memo_max_bytes 0), reach the
// upstream byte for byte alike and come back with the same x-recap-* headers, whatever the
// client does between requests: add items, change a byte of one, reorder them, go back to an
// earlier point and branch off.

const MODEL = 'gpt-test-small';
const model = {
  match: MODEL,
  context_window: 1600,
  max_output_tokens: 200,
  compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 250 },
};

// Small enough that the runs below overflow it: items are dropped and parsed again too.
const CACHE_BYTES = 128 * 1024;
// Big enough to keep whole requests as runs (src/body/item-runs.ts), many conversations' at once.
const ROOMY_CACHE_BYTES = 16 * 1024 * 1024;

let cached: Harness;
let roomy: Harness;
let uncached: Harness;
beforeAll(async () => {
  const options = { fake: { summarizerModel: SUMMARIZER }, models: [model] };
  cached = await startHarness({ ...options, extra: { background: { enabled: false }, tokens: { memo_max_bytes: CACHE_BYTES } } });
  roomy = await startHarness({ ...options, extra: { background: { enabled: false }, tokens: { memo_max_bytes: ROOMY_CACHE_BYTES } } });
  uncached = await startHarness({ ...options, extra: { background: { enabled: false }, tokens: { memo_max_bytes: 0 } } });
});
afterAll(async () => {
  await cached?.close();
  await roomy?.close();
  await uncached?.close();
});

/** One item of the conversation, as a client would write it; `edit` changes one byte of its text. */
interface Item {
  kind: 'user' | 'assistant' | 'step';
  n: number;
  edit: number | null;
}

function text(item: Item): string {
  const words = item.kind === 'step' ? 160 : item.kind === 'user' ? 60 : 3;
  const t = prose(item.n, words);
  if (item.edit === null) return t;
  const at = item.edit % t.length;
  return `${t.slice(0, at)}${t[at] === 'Z' ? 'Y' : 'Z'}${t.slice(at + 1)}`;
}

/** Chat messages: a step is an assistant tool call and its result. */
function chatTexts(item: Item): string[] {
  const id = `call_${item.n}`;
  if (item.kind === 'user') return [`{ "content" : ${JSON.stringify(text(item))}, "role":"user", "name": "caf\\u00e9" }`];
  if (item.kind === 'assistant') return [`{"role":"assistant","content":${JSON.stringify(text(item))},"refusal":null,"extra":1e400}`];
  return [
    `{"role":"assistant","content":null,"tool_calls":[{"id":"${id}","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"/srv/${item.n}\\"}"}}]}`,
    `{"role":"tool","tool_call_id":"${id}","content":${JSON.stringify(text(item))}}`,
  ];
}

/** Responses input items: a step is a function call and its output. */
function responsesTexts(item: Item): string[] {
  const id = `call_${item.n}`;
  if (item.kind === 'user') return [`{ "type":"message", "content" : [{"type":"input_text","text":${JSON.stringify(text(item))}}], "role":"user" }`];
  if (item.kind === 'assistant')
    return [`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":${JSON.stringify(text(item))},"annotations":[]}]}`];
  return [
    `{"type":"function_call","call_id":"${id}","name":"read_file","arguments":"{\\"path\\":\\"/srv/${item.n}\\"}"}`,
    `{"type":"function_call_output","call_id":"${id}","output":${JSON.stringify(text(item))}}`,
  ];
}

interface Route {
  path: string;
  body(items: readonly Item[]): string;
  forwarded(h: Harness): { body: string }[];
}

const ROUTES: Record<'chat' | 'responses', Route> = {
  chat: {
    path: '/v1/chat/completions',
    body: (items) =>
      `{ "seed": 9007199254740993, "model":"${MODEL}",\n "messages" : [ ${['{"role":"system","content":"ops"}', ...items.flatMap(chatTexts)].join(' ,\n ')} ], "max_tokens": 200 }`,
    forwarded: (h) => h.fake.chatRequests(),
  },
  responses: {
    path: '/v1/responses',
    body: (items) =>
      `{ "seed": 9007199254740993, "model":"${MODEL}", "store": false,\n "input" : [ ${['{"role":"developer","content":"ops"}', ...items.flatMap(responsesTexts)].join(' ,\n ')} ], "max_output_tokens": 200 }`,
    forwarded: (h) => h.fake.responsesRequests(),
  },
};

/** What a user of `h` sees of one request: what reached the upstream, the status and recap's headers. */
async function send(h: Harness, route: Route, body: string, conversation: string) {
  const before = route.forwarded(h).length;
  const res = await fetch(`${h.recap.url}${route.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-seen', 'x-conversation-id': conversation },
    body,
  });
  await res.text();
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('x-recap-')));
  return {
    status: res.status,
    headers,
    forwarded: route
      .forwarded(h)
      .slice(before)
      .map((r) => r.body),
  };
}

/** The same, the body written in chunks of `chunkBytes` with a timer tick between them: it arrives in many reads. */
function sendTrickled(h: Harness, route: Route, body: string, conversation: string, chunkBytes: number) {
  const before = route.forwarded(h).length;
  const bytes = Buffer.from(body);
  return new Promise<Awaited<ReturnType<typeof send>>>((resolve, reject) => {
    const req = request(`${h.recap.url}${route.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': bytes.length, authorization: 'Bearer sk-seen', 'x-conversation-id': conversation },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('error', reject);
      res.on('end', () => {
        const headers = Object.fromEntries(Object.entries(res.headers).flatMap(([name, value]) => (name.startsWith('x-recap-') ? [[name, String(value)]] : [])));
        resolve({
          status: res.statusCode ?? 0,
          headers,
          forwarded: route
            .forwarded(h)
            .slice(before)
            .map((r) => r.body),
        });
      });
    });
    void (async () => {
      for (let at = 0; at < bytes.length; at += chunkBytes) {
        req.write(bytes.subarray(at, at + chunkBytes));
        await new Promise((r) => setTimeout(r, 1));
      }
      req.end();
    })();
  });
}

/** What the client does before each request: add items, change a byte of one, swap two, or go back and branch off. */
type Change = { op: 'add'; items: Item[] } | { op: 'edit'; at: number; byte: number } | { op: 'swap'; a: number; b: number } | { op: 'back'; to: number };

const item = fc.record({ kind: fc.constantFrom<Item['kind']>('user', 'assistant', 'step'), n: fc.nat({ max: 40 }), edit: fc.constant(null) });
const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('add' as const), items: fc.array(item, { minLength: 1, maxLength: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('edit' as const), at: fc.nat(), byte: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('back' as const), to: fc.nat() }) },
);

function apply(items: Item[], c: Change): Item[] {
  if (items.length === 0 || c.op === 'add') return c.op === 'add' ? [...items, ...c.items] : items;
  const out = [...items];
  if (c.op === 'edit') out[c.at % out.length] = { ...out[c.at % out.length]!, edit: c.byte };
  if (c.op === 'swap') [out[c.a % out.length], out[c.b % out.length]] = [out[c.b % out.length]!, out[c.a % out.length]!];
  return c.op === 'back' ? out.slice(0, c.to % out.length) : out;
}

let runs = 0;

/** A run that surely crosses the budget, then edits, branches and grows again: recap rewrites, then reuses. */
const steps = (from: number, count: number): Item[] => Array.from({ length: count }, (_, i) => ({ kind: 'step', n: from + i, edit: null }));
const CROSSING: Change[] = [
  { op: 'add', items: [{ kind: 'user', n: 1, edit: null }, ...steps(2, 10)] },
  { op: 'add', items: steps(12, 2) },
  { op: 'edit', at: 3, byte: 500 },
  { op: 'back', to: 8 },
  { op: 'add', items: steps(20, 4) },
];

describe.each(['chat', 'responses'] as const)('the cache of seen items on the %s route', (name) => {
  const route = ROUTES[name];

  it('forwards the same bytes and answers the same headers as a recap without it', async () => {
    const actions = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 3, maxLength: 7 }), async (changes) => {
        const conversation = `seen-${name}-${runs++}`;
        let items: Item[] = [];
        for (const c of changes) {
          items = apply(items, c);
          const body = route.body(items);
          const [withCache, withRuns, without] = [
            await send(cached, route, body, conversation),
            await send(roomy, route, body, conversation),
            await send(uncached, route, body, conversation),
          ];
          expect(withCache).toEqual(without);
          expect(withRuns).toEqual(without);
          expect(withCache.status).toBe(200);
          actions.add(String(withCache.headers['x-recap-action']));
        }
      }),
      { numRuns: 8, examples: [[CROSSING]] },
    );
    // The requests recap rewrote (rule 12's splicing of kept items) are among them.
    expect(actions).toContain('compacted');
  });

  it('counts a changed byte anew, even far into an item it has seen', async () => {
    const step: Item = { kind: 'step', n: 7, edit: null };
    const before = await send(cached, route, route.body([step]), `seen-edit-${name}`);
    // A byte a kilobyte into the tool result: past the bytes the cache looks an item up by.
    const edited = await send(cached, route, route.body([{ ...step, edit: 1000 }]), `seen-edit-${name}`);
    const fresh = await send(uncached, route, route.body([{ ...step, edit: 1000 }]), `seen-edit-${name}`);
    expect(fresh.headers['x-recap-tokens-in']).not.toBe(before.headers['x-recap-tokens-in']);
    expect(edited.headers['x-recap-tokens-in']).toBe(fresh.headers['x-recap-tokens-in']);
    expect(edited.forwarded).toEqual(fresh.forwarded);
    expect(edited.forwarded).not.toEqual(before.forwarded);
  });

  it('takes only unchanged items while a body is still arriving, a changed byte in a late chunk counted anew', async () => {
    const conversation = `seen-trickle-${name}`;
    const history: Item[] = [{ kind: 'user', n: 3, edit: null }, ...steps(30, 3)];
    await send(cached, route, route.body(history), conversation);
    const edited = history.map((it, i) => (i === 2 ? { ...it, edit: 900 } : it));
    for (const items of [history, edited, [...edited, ...steps(40, 1)]]) {
      const body = route.body(items);
      // The edited result's first bytes arrive chunks before the changed one.
      const [withCache, withRuns, without] = [
        await sendTrickled(cached, route, body, conversation, 256),
        await sendTrickled(roomy, route, body, conversation, 256),
        await send(uncached, route, body, conversation),
      ];
      expect(withCache).toEqual(without);
      expect(withRuns).toEqual(without);
      expect(withCache.status).toBe(200);
    }
  });
});

describe('the cache of seen items', () => {
  it('holds no more than tokens.memo_max_bytes, and says so in /metrics', async () => {
    const metrics = await (await fetch(`${cached.recap.url}/metrics`)).text();
    const gauge = (name: string) => Number(metrics.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1]);
    expect(gauge('recap_seen_items')).toBeGreaterThan(0);
    expect(gauge('recap_seen_items_bytes')).toBeGreaterThan(CACHE_BYTES / 2);
    expect(gauge('recap_seen_items_bytes')).toBeLessThanOrEqual(CACHE_BYTES);
  });
});
