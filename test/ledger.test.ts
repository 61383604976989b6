import type OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { LEDGER_HEADING, splitLedger } from '../src/compaction/ledger-section.js';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { getTokenizer } from '../src/tokens/encodings.js';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';

// The identifier ledger end to end: a summarizer that drops every identifier (the fake's lossy
// mode) compacts a long conversation many times over, and what the model receives still names the
// ticket, the file, the URL and the commit of turn 3.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-ledger';
const TURN_3 = 'Turn 3: the customer reports ticket SUP-4411 about /etc/billing/rates.yaml, see https://status.example.com/incidents/4411 and commit 7f3a9c21.';
const TURN_3_IDS = ['SUP-4411', '/etc/billing/rates.yaml', 'https://status.example.com/incidents/4411', '7f3a9c21'];
const countText = (text: string) => getTokenizer('o200k_base').count(text);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const WORDS = ['the', 'refund', 'customer', 'waited', 'while', 'support', 'checked', 'billing', 'again', 'and', 'then', 'replied', 'politely', 'about', 'delays'];
function chatter(turn: number, words = 70): string {
  const out = [`Turn ${turn}:`];
  for (let i = 0; i < words; i++) out.push(WORDS[(turn * 5 + i * 7) % WORDS.length]!);
  return `${out.join(' ')}.`;
}

async function start(compaction: Record<string, unknown>) {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, lossySummarizer: true },
    extra: { background: { enabled: false } },
    models: [
      {
        match: MODEL,
        context_window: 4000,
        max_output_tokens: 400,
        compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 400, ...compaction },
      },
    ],
  });
  return h;
}

/** Drives `turns` turns through recap; returns the summary text of every upstream request that had one. */
async function drive(harness: Harness, turns: number, text: (turn: number) => string): Promise<string[]> {
  const client = harness.client({ conversation: 'ledger' });
  const messages: Msg[] = [{ role: 'system', content: 'You help the billing support team.' }];
  const summaries: string[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: text(turn) });
    const reply = await client.chat.completions.create({ model: MODEL, messages });
    messages.push({ role: 'assistant', content: reply.choices[0]!.message.content ?? '' });
    const sent = harness.fake.chatRequests().at(-1)!.json.messages as { role: string; content: string }[];
    const summary = sent.find((m) => m.role === 'system' && m.content.startsWith(SUMMARY_MARKER));
    if (summary) summaries.push(summary.content);
  }
  return summaries;
}

async function storedSummaries(harness: Harness): Promise<string[]> {
  const res = await fetch(`${harness.recap.url}/recap/v1/conversations/ledger`, { headers: { authorization: 'Bearer sk-test-key' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { checkpoints: { summary: string }[] }).checkpoints.map((c) => c.summary);
}

async function ledgerMetric(harness: Harness, outcome: string): Promise<number> {
  const text = await (await fetch(`${harness.recap.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`recap_ledger_identifiers_total{model="${MODEL}",outcome="${outcome}"}`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

describe('identifier ledger', () => {
  it('keeps the identifiers of turn 3 in what the model receives after 10+ generations of lossy carry-over (300 turns)', async () => {
    const harness = await start({});
    const summaries = await drive(harness, 300, (t) => (t === 3 ? `${TURN_3} ${chatter(t, 40)}` : chatter(t)));
    const generations = harness.fake.summarizerRequests().length;
    expect(generations).toBeGreaterThanOrEqual(10);
    // The summarizer saw the ids only in the ledger of the summary it carried over, and dropped them.
    const lastReply = JSON.parse(harness.fake.sentBytes(harness.fake.summarizerRequests().at(-1)!).toString()).choices[0].message.content as string;
    for (const id of TURN_3_IDS) expect(lastReply).not.toContain(id);
    const last = summaries.at(-1)!;
    for (const id of TURN_3_IDS) expect(last).toContain(id);
    expect(last.split(LEDGER_HEADING)).toHaveLength(2);
    expect(await ledgerMetric(harness, 'appended')).toBeGreaterThanOrEqual(generations * TURN_3_IDS.length);
  }, 120_000);

  it('without the ledger, the lossy summarizer loses them (the control)', async () => {
    const harness = await start({ ledger: false });
    const summaries = await drive(harness, 60, (t) => (t === 3 ? `${TURN_3} ${chatter(t, 40)}` : chatter(t)));
    expect(harness.fake.summarizerRequests().length).toBeGreaterThanOrEqual(2);
    for (const id of TURN_3_IDS) expect(summaries.at(-1)!).not.toContain(id);
    expect(await ledgerMetric(harness, 'appended')).toBe(0);
  }, 60_000);

  it('never puts a redacted secret back into a summary', async () => {
    const harness = await start({});
    const secrets = ['sk-proj-abc123def456ghi789jkl012', 'hunter2hunter2', 'AKIAIOSFODNN7EXAMPLE'];
    const turn3 = `${TURN_3} Key sk-proj-abc123def456ghi789jkl012, db postgres://app:hunter2hunter2@db.internal:5432/app, AWS AKIAIOSFODNN7EXAMPLE.`;
    const summaries = await drive(harness, 60, (t) => (t === 3 ? turn3 : chatter(t)));
    expect(summaries.length).toBeGreaterThan(0);
    const stored = await storedSummaries(harness);
    const summarizerInput = harness.fake.summarizerRequests().map((r) => r.body);
    for (const text of [...summaries, ...stored, ...summarizerInput]) for (const secret of secrets) expect(text).not.toContain(secret);
    expect(summaries.at(-1)).toContain('postgres://app:[REDACTED:url_credentials]@db.internal:5432/app');
  }, 60_000);

  it('stays within summary_max_tokens, dropping the oldest identifiers first', async () => {
    const harness = await start({ summary_max_tokens: 300 });
    await drive(harness, 120, (t) => prose(t, 60));
    const stored = await storedSummaries(harness);
    expect(stored.length).toBeGreaterThan(0);
    for (const summary of stored) expect(countText(summary)).toBeLessThanOrEqual(300);
    const newest = splitLedger(stored.at(-1)!).entries.map((e) => e.id);
    expect(newest.length).toBeGreaterThan(3);
    // prose(t) names ORD-(1000+t): newest first, and the oldest turns are the ones left out.
    const turns = newest.filter((e) => e.startsWith('ORD-')).map((e) => Number(e.slice(4)) - 1000);
    expect(turns).toEqual([...turns].sort((a, b) => b - a));
    expect(newest).not.toContain('ORD-1001');
    expect(await ledgerMetric(harness, 'dropped')).toBeGreaterThan(0);
  }, 60_000);

  it('works for the template strategy, within template_max_bytes', async () => {
    const harness = await start({ strategy: 'template', template_max_bytes: 1500 });
    const summaries = await drive(harness, 150, (t) => (t === 3 ? `${chatter(t, 10)}\n${TURN_3}` : chatter(t)));
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of await storedSummaries(harness)) expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(1500);
    for (const id of TURN_3_IDS) expect(summaries.at(-1)).toContain(id);
    expect(harness.fake.summarizerRequests()).toHaveLength(0);
  }, 60_000);
});
