import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOLS } from './agent-task-script.js';
import type { Drive } from './bench-recap.js';
import { type BenchPrices, type Bill, bill, type CacheMode } from './cache-cost-bill.js';
import { AGENT, CHAT, type Conversation, drive, SHORT_AGENT, SUMMARIZER_MODEL } from './cache-cost-drive.js';

// `npm run bench -- cache-cost`: what recap's compaction costs in money when the provider caches
// prompt prefixes. Three conversations (the agent task, the long chat, the agent task cut short on
// a window it never fills) are played through recap
// with and without `pricing`; every request recap forwarded and every summarizer call it made are
// billed through a simulated prompt cache (src/dev/prompt-cache.ts), and so are the client's own
// requests sent as they were. Reported: recap's effective input cost (summarizer included) over
// sending everything, at cached prices of 0.1×, 0.25×, 0.5× of input and without caching
// (OpenAI-style automatic caching), and at Anthropic's 0.1× reads and 1.25× writes; each with the
// two summarizer options: a separate model at a fifth of the price, and the conversation's own
// model on its cached prefix (summarizer.shared_prefix).
// Goals (issue 36): ≤ 0.5× at 0.1× with pricing; never above 1.0×.

const CONVERSATIONS = [AGENT, CHAT, SHORT_AGENT];
const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, 'results', 'cache-cost.json');

/** Per million tokens: the conversation's model, and a summarizer at a fifth of its price. */
const INPUT = 1;
const OUTPUT = 4;
const SUMMARIZER_SHARE = 0.2;

interface Billing {
  name: string;
  mode: CacheMode;
  /** Cached input as a share of input; write as a share of input. */
  cached: number;
  write: number;
}

const BILLINGS: Billing[] = [
  { name: 'cached 0.1×', mode: 'automatic', cached: 0.1, write: 1 },
  { name: 'cached 0.25×', mode: 'automatic', cached: 0.25, write: 1 },
  { name: 'cached 0.5×', mode: 'automatic', cached: 0.5, write: 1 },
  { name: 'no caching', mode: 'automatic', cached: 1, write: 1 },
  { name: 'Anthropic 0.1× / 1.25×', mode: 'breakpoints', cached: 0.1, write: 1.25 },
];

const perToken = (scale: number, b: Billing): BenchPrices => ({
  input: (scale * INPUT) / 1e6,
  cachedInput: (scale * INPUT * b.cached) / 1e6,
  cacheWrite: (scale * INPUT * b.write) / 1e6,
  output: (scale * OUTPUT) / 1e6,
});

/** The config's `pricing` for a billing (per million). */
function pricing(b: Billing, scale = 1): Record<string, number> {
  return { input: scale * INPUT, cached_input: scale * INPUT * b.cached, cache_write: scale * INPUT * b.write, output: scale * OUTPUT };
}

/**
 * The summarizer options (issue 36): a separate model at a fifth of the conversation model's price,
 * a separate model at its full price (when there is no cheaper one), and the conversation's own
 * model on its cached prefix (summarizer.shared_prefix).
 */
interface SummarizerOption {
  name: string;
  /** Its prices as a share of the conversation model's. */
  share: number;
  sharedPrefix: boolean;
}
const SUMMARIZERS: SummarizerOption[] = [
  { name: `separate ${SUMMARIZER_SHARE}×`, share: SUMMARIZER_SHARE, sharedPrefix: false },
  { name: 'separate 1×', share: 1, sharedPrefix: false },
  { name: 'shared prefix', share: 1, sharedPrefix: true },
];

function compaction(b: Billing | null, option: SummarizerOption): Record<string, unknown> {
  if (option.sharedPrefix) return { strategy: 'summarize', summarizer: { shared_prefix: true } };
  const summarizer: Record<string, unknown> = { model: SUMMARIZER_MODEL };
  if (b) summarizer.pricing = pricing(b, option.share);
  return { strategy: 'summarize', summarizer };
}

interface Row {
  conversation: string;
  billing: string;
  summarizer: string;
  pricing: boolean;
  ratio: number;
  summarizer_share: number;
  /** Of the summarizer calls' prompt tokens, those read from the cache. */
  cached_share_summarizer: number;
  tokens_ratio: number;
  cached_share_recap: number;
  cached_share_client: number;
  compactions: number;
  summarizer_calls: number;
}

function row(c: Conversation, b: Billing, option: SummarizerOption, withPricing: boolean, d: Drive, x: Bill): Row {
  return {
    conversation: c.name,
    billing: b.name,
    summarizer: option.name,
    pricing: withPricing,
    ratio: round(x.effective / x.baseline),
    summarizer_share: round(x.summarizer / x.baseline),
    cached_share_summarizer: round(x.cachedSummarizer / Math.max(1, x.tokensSummarizer)),
    tokens_ratio: round(x.tokensForwarded / x.tokensClient),
    cached_share_recap: round(x.cachedForwarded / Math.max(1, x.tokensForwarded)),
    cached_share_client: round(x.cachedClient / Math.max(1, x.tokensClient)),
    compactions: d.turns.filter((t) => t.action === 'compacted').length,
    summarizer_calls: d.summarizer.length,
  };
}

const round = (v: number) => Math.round(v * 1000) / 1000;

export async function runCacheCostBench(): Promise<unknown> {
  const rows: Row[] = [];
  for (const c of CONVERSATIONS) {
    const tools = c === CHAT ? undefined : TOOLS;
    // Without prices a separate summarizer's price changes nothing recap does: one drive serves both.
    let separatePlain: Drive | undefined;
    for (const option of SUMMARIZERS) {
      const tag = option.sharedPrefix ? '-shared' : option.share === 1 ? '-separate-1x' : '';
      const plain = (!option.sharedPrefix && separatePlain) || (await drive(c, { name: `tokens${tag}`, compaction: compaction(null, option) }));
      if (!option.sharedPrefix) separatePlain = plain;
      for (const b of BILLINGS) {
        rows.push(row(c, b, option, false, plain, bill(plain, b.mode, perToken(1, b), perToken(option.share, b), tools)));
        const priced = await drive(c, { name: `cost-${b.name.replace(/\W+/g, '-')}${tag}`, compaction: compaction(b, option), pricing: pricing(b) });
        rows.push(row(c, b, option, true, priced, bill(priced, b.mode, perToken(1, b), perToken(option.share, b), tools)));
      }
    }
  }
  // The first goal is about conversations that outgrow the window (recap compacts them without
  // prices too); one that never does can only stay at 1.0×.
  const outgrow = new Set(rows.filter((r) => !r.pricing && r.compactions > 0).map((r) => r.conversation));
  // Per summarizer option.
  const goals = Object.fromEntries(
    SUMMARIZERS.map(({ name }) => {
      const priced = rows.filter((r) => r.pricing && r.summarizer === name);
      return [
        name,
        {
          at_tenth_with_pricing_at_most_half: priced.filter((r) => r.billing === 'cached 0.1×' && outgrow.has(r.conversation)).every((r) => r.ratio <= 0.5),
          never_above_one_with_pricing: priced.every((r) => r.ratio <= 1),
        },
      ];
    }),
  );
  printTable(rows);
  process.stdout.write(`goals: ${JSON.stringify(goals)}\n`);
  const result = {
    bench: 'cache-cost',
    node: process.version,
    note: 'one run on a shared 2-core machine; the figures are token counts and prices, not timings, so they do not depend on load',
    setup: {
      conversations: CONVERSATIONS.map((c) => ({ name: c.name, context_window: c.contextWindow, max_output_tokens: c.maxOutputTokens, length: c.length, seed: c.seed })),
      prices_per_million: { input: INPUT, output: OUTPUT, summarizers: SUMMARIZERS },
      cache:
        'src/dev/prompt-cache.ts: automatic (longest shared prefix from 1,024 tokens in 128-token steps) or breakpoints (after the client’s own system block, not after recap’s summary, and on the last message, 20-block lookback, 5-minute lifetime)',
      background: false,
    },
    rows,
    goals,
  };
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

function printTable(rows: Row[]): void {
  const header = [
    'conversation',
    'billing',
    'summarizer',
    'pricing',
    'cost ×',
    'summarizer ×',
    'cached (summarizer)',
    'tokens ×',
    'cached (recap)',
    'cached (client)',
    'compactions',
    'summarizer calls',
  ];
  const lines = rows.map((r) => [
    r.conversation,
    r.billing,
    r.summarizer,
    r.pricing ? 'yes' : 'no',
    r.ratio.toFixed(3),
    r.summarizer_share.toFixed(3),
    r.summarizer_calls > 0 ? `${(r.cached_share_summarizer * 100).toFixed(0)}%` : '–',
    r.tokens_ratio.toFixed(3),
    `${(r.cached_share_recap * 100).toFixed(0)}%`,
    `${(r.cached_share_client * 100).toFixed(0)}%`,
    String(r.compactions),
    String(r.summarizer_calls),
  ]);
  process.stdout.write(`| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n`);
  for (const l of lines) process.stdout.write(`| ${l.join(' | ')} |\n`);
}
