import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyLedger } from '../src/compaction/ledger.js';
import { ledgerCandidates } from '../src/compaction/ledger-candidates.js';
import { type Config, loadConfig } from '../src/config/config.js';
import { startFakeUpstream } from '../src/dev/fake-upstream.js';
import type { RecallCost } from '../src/eval/report.js';
import { reportJson } from '../src/eval/report.js';
import { runEval } from '../src/eval/run.js';
import type { ChatMessage } from '../src/messages/types.js';
import { getTokenizer } from '../src/tokens/encodings.js';
import { trailFigures } from './eval-example-trail.js';

// `recap eval` on the shipped example (examples/conversations/support-ticket.json) against the
// fake upstream, with its extractive and its lossy summarizer, the ledger on and off, and a few
// summary sizes: the figures of docs/eval.md, each view without and with recap_recall (and
// what the recalls cost: calls, hops, upstream tokens and time). Then what the ledger costs in CPU, on the
// example's evicted span and on a span holding a 5 MB tool result.
// Run: npm run bench -- eval-example

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = join(ROOT, 'examples/conversations/support-ticket.json');
const CONFIG = join(ROOT, 'examples/eval-fake.yaml');
const RESULTS_FILE = join(ROOT, 'bench/results/eval-example.json');
const RUNS = 9;

interface Variant {
  summarizer: 'extractive' | 'lossy';
  ledger: boolean;
  summaryMaxTokens: number;
}

const VARIANTS: Variant[] = [
  { summarizer: 'extractive', ledger: false, summaryMaxTokens: 1024 },
  { summarizer: 'extractive', ledger: true, summaryMaxTokens: 1024 },
  { summarizer: 'lossy', ledger: false, summaryMaxTokens: 1024 },
  { summarizer: 'lossy', ledger: true, summaryMaxTokens: 1024 },
  { summarizer: 'lossy', ledger: true, summaryMaxTokens: 512 },
  { summarizer: 'lossy', ledger: true, summaryMaxTokens: 2048 },
];

function variantConfig(base: Config, v: Variant): Config {
  return { ...base, models: base.models.map((m) => ({ ...m, compaction: { ...m.compaction, ledger: v.ledger, summary_max_tokens: v.summaryMaxTokens } })) };
}

const pct = (x: unknown) => (typeof x === 'number' ? `${Math.round(x * 100)}%` : 'n/a');

async function evalFigures() {
  const conversation = (JSON.parse(await readFile(EXAMPLE, 'utf8')) as { messages: ChatMessage[] }).messages;
  const rows: Record<string, unknown>[] = [];
  for (const lossy of [false, true]) {
    const fake = await startFakeUpstream({ summarizerModel: 'fake-summarizer', lossySummarizer: lossy });
    try {
      const base = loadConfig(CONFIG, { FAKE_UPSTREAM_URL: fake.url });
      for (const v of VARIANTS.filter((x) => (x.summarizer === 'lossy') === lossy)) {
        const before = fake.chatRequests().length;
        const r = reportJson(await runEval({ file: EXAMPLE, config: variantConfig(base, v) }));
        const kinds = r.by_kind as Record<string, { recall_compacted: number | null }>;
        // The first chat request of the run is the conversation as recap forwarded it, compacted.
        const forwarded = (fake.chatRequests()[before]!.json as { messages: ChatMessage[] }).messages;
        rows.push({
          ...v,
          ...r,
          results: undefined,
          identifier_recall: kinds.identifier!.recall_compacted,
          fact_recall: kinds.fact!.recall_compacted,
          trail: trailFigures(conversation, forwarded),
        });
      }
    } finally {
      await fake.close();
    }
  }
  return rows;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function ledgerCost() {
  const countText = (t: string) => getTokenizer('o200k_base').count(t);
  const body = JSON.parse(await readFile(EXAMPLE, 'utf8')) as { messages: ChatMessage[] };
  const evicted = body.messages.slice(1, 347);
  const bigDump: ChatMessage = {
    role: 'tool',
    tool_call_id: 'c',
    content: Array.from({ length: 80_000 }, (_, i) => `row ${i} /srv/data/part-${i}.csv sha ${((i * 2654435761) >>> 0).toString(16)}`).join('\n'),
  };
  const cases = [
    { span: `example's evicted span (${evicted.length} messages)`, evicted },
    { span: `a ${Math.round(String(bigDump.content).length / 1e6)} MB tool result`, evicted: [bigDump] },
  ];
  return cases.map(({ span, evicted }) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      applyLedger({ candidates: ledgerCandidates(evicted, null), text: '## Goal\n- none', maxTokens: 1024, countText });
      times.push(performance.now() - started);
    }
    return { span, median_ms: Math.round(median(times) * 10) / 10 };
  });
}

export async function runEvalExampleBench(): Promise<void> {
  const figures = await evalFigures();
  const cost = await ledgerCost();
  const header =
    '| summarizer (fake) | ledger | summary_max_tokens | recall, compacted view | identifiers | facts | with recap_recall | recall calls (probes) | hops per probe | extra upstream tokens / ms per recall | recall, full history | tokens compacted / full | summary message tokens | ledger appended / kept / dropped | first third: user-stated ids kept | first third: tool-call ids kept |';
  const lines = [header, '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of figures) {
    const l = r.ledger_identifiers as { appended: number; kept: number; dropped: number };
    const t = r.trail as ReturnType<typeof trailFigures>;
    const c = r.recall_hops as RecallCost | null;
    lines.push(
      `| ${r.summarizer} | ${r.ledger ? 'on' : 'off'} | ${r.summaryMaxTokens} | ${pct(r.recall_compacted)} of ${r.probes} | ${pct(r.identifier_recall)} | ${pct(r.fact_recall)} | ${pct(r.recall_with_recall)} | ${c ? `${c.calls} (${c.probes_recalling})` : '–'} | ${c?.hops_per_probe ?? '–'} | ${c ? `${c.extra_upstream_tokens_per_recall ?? '–'} / ${c.extra_ms_per_recall ?? '–'}` : '–'} | ${pct(r.recall_full)} | ${r.tokens_compacted} / ${r.tokens_full} | ${r.summary_tokens} | ${r.ledger ? `${l.appended} / ${l.kept} / ${l.dropped}` : '–'} | ${t.user_identifiers_kept}/${t.user_identifiers} | ${t.call_identifiers_kept}/${t.call_identifiers} |`,
    );
  }
  lines.push('', '| ledger on | median (of 9) |', '| --- | --- |', ...cost.map((c) => `| ${c.span} | ${c.median_ms} ms |`));
  process.stdout.write(`${lines.join('\n')}\n`);
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify({ figures, ledger_cost: cost }, null, 2)}\n`);
}
