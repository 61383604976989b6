import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatMessage } from '../src/messages/types.js';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import type { PromptBlock } from '../src/dev/prompt-cache.js';
import type { Drive } from './bench-recap.js';
import { blocksOf } from './cache-cost-bill.js';
import { AGENT, CHAT, type Conversation, drive, SUMMARIZER_MODEL } from './cache-cost-drive.js';

// `npm run bench -- cache-breaks`: where recap's forwarded prompt stops sharing the previous one's
// prefix (docs/cost.md, Keeping the cache). The two long conversations of bench cache-cost, with and
// without `pricing`, are played through recap; each forwarded request is compared block by block
// (the tools, then each message) with the one before it. A break on a turn that made no new cut
// (x-recap-action `none` or `reused` with the same summary and stubs) would be a layout that
// changes bytes the model sees alike: the goal is none. At each cut, the tokens of the previous
// summary and of the opening task measure what two other layouts could keep cached at most:
// a carry-over that appends to the old summary instead of rewriting it, and the task before the
// summary instead of after it.

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, 'results', 'cache-breaks.json');
const PRICING = { input: 1, cached_input: 0.1, cache_write: 1, output: 4 };

interface Row {
  conversation: string;
  pricing: boolean;
  requests: number;
  /** Prefix breaks on turns that made no new cut, and the tokens sent after them. */
  breaks_without_cut: number;
  tokens_after_breaks_without_cut: number;
  /** Prefix breaks at cuts (a new summary, or newly cleared results), and the tokens sent after them. */
  cuts: number;
  tokens_after_cuts: number;
  /** Tokens re-sent after all breaks, as a share of all tokens forwarded. */
  reread_share: number;
  /** What the two other layouts would keep cached at most, as a share of all tokens forwarded. */
  old_summary_share: number;
  task_share: number;
}

const isSummary = (key: string | undefined): boolean => key !== undefined && (JSON.parse(key) as ChatMessage).content?.toString().startsWith(SUMMARY_MARKER) === true;
const sum = (blocks: readonly PromptBlock[]) => blocks.reduce((n, b) => n + b.tokens, 0);

function measure(c: Conversation, withPricing: boolean, d: Drive): Row {
  const row: Row = {
    conversation: c.name,
    pricing: withPricing,
    requests: d.chatRequests.length,
    breaks_without_cut: 0,
    tokens_after_breaks_without_cut: 0,
    cuts: 0,
    tokens_after_cuts: 0,
    reread_share: 0,
    old_summary_share: 0,
    task_share: 0,
  };
  let forwarded = 0;
  let reread = 0;
  let oldSummary = 0;
  let task = 0;
  let prev: PromptBlock[] | null = null;
  d.chatRequests.forEach((r, n) => {
    const blocks = blocksOf(r.json as { messages: ChatMessage[]; tools?: unknown[] });
    forwarded += sum(blocks);
    if (prev) {
      let i = 0;
      while (i < prev.length && i < blocks.length && prev[i]!.key === blocks[i]!.key) i++;
      if (i < prev.length) {
        const after = sum(blocks.slice(i));
        reread += after;
        if (d.turns[n]?.action === 'compacted' || isSummary(blocks[i]?.key)) {
          row.cuts++;
          row.tokens_after_cuts += after;
          // A new summary where the old one was: the old one, and the task after it, could have stayed.
          if (isSummary(blocks[i]?.key) && isSummary(prev[i]?.key)) {
            oldSummary += prev[i]!.tokens;
            task += prev[i + 1]?.tokens ?? 0;
          } else if (isSummary(blocks[i]?.key)) task += prev[i]!.tokens;
        } else {
          row.breaks_without_cut++;
          row.tokens_after_breaks_without_cut += after;
        }
      }
    }
    prev = blocks;
  });
  const share = (t: number) => Math.round((t / Math.max(1, forwarded)) * 10_000) / 10_000;
  return { ...row, reread_share: share(reread), old_summary_share: share(oldSummary), task_share: share(task) };
}

export async function runCacheBreaksBench(): Promise<unknown> {
  const rows: Row[] = [];
  for (const c of [AGENT, CHAT]) {
    for (const withPricing of [false, true]) {
      const summarizer = { model: SUMMARIZER_MODEL, ...(withPricing ? { pricing: { input: 0.2, cached_input: 0.02, cache_write: 0.2, output: 0.8 } } : {}) };
      const d = await drive(c, {
        name: `breaks-${withPricing ? 'cost' : 'tokens'}`,
        compaction: { strategy: 'summarize', summarizer },
        ...(withPricing ? { pricing: PRICING } : {}),
      });
      rows.push(measure(c, withPricing, d));
    }
  }
  const header = ['conversation', 'pricing', 'requests', 'breaks without a cut', 'cuts', 're-sent after a break', 'old summary (append)', 'task before summary'];
  process.stdout.write(`| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n`);
  const pct = (v: number) => `${(v * 100).toFixed(2)}%`;
  for (const r of rows) {
    const cells = [r.conversation, r.pricing ? 'yes' : 'no', r.requests, r.breaks_without_cut, r.cuts, pct(r.reread_share), pct(r.old_summary_share), pct(r.task_share)];
    process.stdout.write(`| ${cells.join(' | ')} |\n`);
  }
  const result = { bench: 'cache-breaks', node: process.version, note: 'token counts of what recap forwarded, not timings', pricing: PRICING, rows };
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
