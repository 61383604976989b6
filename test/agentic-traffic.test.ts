import type OpenAI from 'openai';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src/dev/fake-upstream.js';
import { prose } from './helpers/conversation.js';
import { type Deployment, type DeploymentKind, startDeployment } from './helpers/deployment.js';
import { SUMMARIZER, smallModel } from './helpers/harness.js';

// Issue 17: compaction under agentic traffic (rules 9 and 10), on one process and on two replicas
// sharing Redis. Rapid turns make one summarizer call per boundary, each building on the one before;
// a summary is used by every waiting request as soon as it is made, however long the compacting
// request's own reply takes; branches of one opening never block each other; a failed summary is
// retried by a waiter instead of degrading everyone.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';
const KINDS: DeploymentKind[] = ['one process', 'two processes on one Redis'];

let deployment: Deployment | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

async function send(d: Deployment, n: number, messages: Msg[], conversation?: string): Promise<{ action: string; reply: string }> {
  const { data, response } = await d.client(n, conversation).chat.completions.create({ model: MODEL, messages }).withResponse();
  return { action: response.headers.get('x-recap-action')!, reply: data.choices[0]!.message.content ?? '' };
}

/** What the summarizer was given as the previous summary, and what it answered. */
function summarizerExchange(d: Deployment, r: RecordedRequest): { previous: string | null; input: string; reply: string } {
  const input = (r.json as { messages: { content: string }[] }).messages[1]!.content;
  const previous = /<previous_summary>\n([\s\S]*?)\n<\/previous_summary>/.exec(input)?.[1] ?? null;
  const reply = (JSON.parse(d.fake.sentBytes(r).toString()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  return { previous, input, reply };
}

/**
 * How many times the replicas have read conversations' lock tables: a request claiming a
 * compaction reads its table once, one waiting for another's compaction polls it (single-flight.ts).
 */
async function lockTableReads(d: Deployment): Promise<number> {
  const counts = await Promise.all(
    d.urls.map(async (url) => {
      const line = (await (await fetch(`${url}/metrics`)).text()).split('\n').find((l) => l.startsWith('recap_store_duration_seconds_count{op="read_locks"}'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** An over-budget history: 30 rounds after a system message, then a question. */
function history(tag = ''): Msg[] {
  const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: `${tag}${prose(t)}` }, { role: 'assistant', content: `noted ${t}` });
  messages.push({ role: 'user', content: 'so, what now?' });
  return messages;
}

describe.each(KINDS)('agentic traffic on %s', (kind) => {
  // The tests without background preparation share one deployment (started by the first that
  // needs it): each starts from a fake that has forgotten the requests and scripts before it, and
  // names conversations of its own.
  let shared: Deployment | undefined;
  const withoutBackground = async (summarizerLatencyMs: number): Promise<Deployment> => {
    shared ??= await startDeployment(kind, { summarizerModel: SUMMARIZER }, { models: [smallModel()], extra: { background: { enabled: false } } });
    shared.fake.reset();
    shared.fake.setOptions({ summarizerLatencyMs });
    return shared;
  };
  afterAll(async () => shared?.close());

  it('rapid turns with background preparation: each summarizer call carries the one before, no two from the same base', async () => {
    const d = (deployment = await startDeployment(kind, { summarizerModel: SUMMARIZER, summarizerLatencyMs: 300 }, { models: [smallModel()] }));
    const tags = ['[conv A] ', '[conv B] '];
    // Two conversations, 40 turns each, at the same time and with no pause between turns.
    await Promise.all(
      tags.map(async (tag, c) => {
        const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
        for (let t = 1; t <= 40; t++) {
          messages.push({ role: 'user', content: `${tag}${prose(t)}` });
          const { reply } = await send(d, t, messages, `rapid-${c}`);
          messages.push({ role: 'assistant', content: reply });
        }
      }),
    );
    await d.settled();
    for (const tag of tags) {
      const calls = d.fake
        .summarizerRequests()
        .map((r) => summarizerExchange(d, r))
        .filter((x) => x.input.includes(tag));
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(calls[0]!.previous).toBeNull();
      // Each later call starts from the summary the one before it made (the ledger may follow it).
      calls.slice(1).forEach((call, k) => expect(call.previous?.startsWith(calls[k]!.reply.trim())).toBe(true));
      expect(new Set(calls.map((c) => c.previous)).size).toBe(calls.length);
    }
  });

  it('one compaction during a long reply serves 20 concurrent requests at once: none degraded, one summarizer call', async () => {
    const d = await withoutBackground(800);
    // No reply comes back until all 20 requests have reached the upstream: none waits for the
    // compacting request's reply, however long it takes.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    d.fake.setDefault((req) => (req.json?.model === MODEL ? { heldUntil: released } : undefined));
    const requests = Array.from({ length: 20 }, (_, i) => send(d, i, history(), 'long-reply'));
    await expect.poll(() => d.fake.chatRequests().length, { timeout: 20_000 }).toBe(20);
    release();
    const actions = (await Promise.all(requests)).map((r) => r.action);
    expect(actions.filter((a) => a === 'compacted')).toHaveLength(1);
    expect(actions.filter((a) => a === 'reused')).toHaveLength(19);
    expect(d.fake.summarizerRequests()).toHaveLength(1);
  });

  it('eight branches of one opening without a conversation header never block each other', async () => {
    const d = await withoutBackground(300);
    const readsBefore = await lockTableReads(d);
    // Branch 3's first compaction never ends: a branch that waited on another would wait on it.
    const STUCK = 3;
    let stuck: RecordedRequest | undefined;
    d.fake.setDefault((req) => {
      if (stuck || req.json?.model !== SUMMARIZER || !req.body.includes(`[branch ${STUCK}]`)) return undefined;
      stuck = req;
      return { delayMs: 600_000 };
    });
    const stuckTurn = new AbortController();
    const branches = Array.from({ length: 8 }, async (_, branch) => {
      // The same system prompt and first user message (sub-agents, retries), then each its own way.
      const messages: Msg[] = [
        { role: 'system', content: 'You help the ops team.' },
        { role: 'user', content: 'Start the incident review for INC-4411.' },
      ];
      const seen: string[] = [];
      for (let t = 1; t <= 30; t++) {
        const signal = branch === STUCK ? stuckTurn.signal : undefined;
        const { data, response } = await d
          .client(t + branch)
          .chat.completions.create({ model: MODEL, messages }, { signal })
          .withResponse();
        seen.push(response.headers.get('x-recap-action')!);
        messages.push({ role: 'assistant', content: data.choices[0]!.message.content ?? '' }, { role: 'user', content: `[branch ${branch}] ${prose(t)}` });
      }
      return seen;
    });
    const stuckBranch = branches[STUCK]!.catch((err: unknown) => err);
    const others = await Promise.all(branches.filter((_, b) => b !== STUCK));
    // All seven others ran their 30 turns, compactions included, while branch 3's is still held.
    expect(stuck).toBeDefined();
    expect(stuck!.closedEarly).toBe(false);
    expect(d.fake.sentBytes(stuck!)).toHaveLength(0);
    for (const seen of others) {
      expect(seen.filter((a) => a === 'degraded')).toEqual([]);
      expect(seen).toContain('compacted');
    }
    // No request waited for another's compaction, however briefly: each claim read its lock table
    // once and went on to its own summarizer call, where a waiter would have polled the table.
    expect((await lockTableReads(d)) - readsBefore).toBe(d.fake.summarizerRequests().length);
    // Each branch summarized itself: every compacting turn made a summary of its own branch.
    others.forEach((seen, k) => {
      const branch = k < STUCK ? k : k + 1;
      const own = d.fake.summarizerRequests().filter((r) => r.body.includes(`[branch ${branch}]`));
      expect(own).toHaveLength(seen.filter((a) => a === 'compacted').length);
    });
    stuckTurn.abort();
    expect(await stuckBranch).toBeInstanceOf(Error);
  });

  it('after a failed first summary the waiters wait for the retry instead of degrading', async () => {
    const d = await withoutBackground(300);
    d.fake.enqueue({ status: 500 }, { model: SUMMARIZER });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => send(d, i, history(), 'failed-first')));
    const actions = results.map((r) => r.action);
    // Only the request whose summary failed degrades (rule 8); a waiter makes the summary again.
    expect(actions.filter((a) => a === 'degraded')).toHaveLength(1);
    expect(actions.filter((a) => a === 'compacted')).toHaveLength(1);
    expect(actions.filter((a) => a === 'reused')).toHaveLength(28);
    expect(d.fake.summarizerRequests()).toHaveLength(2);
  });
});
