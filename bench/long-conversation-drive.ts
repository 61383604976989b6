import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { parseConfig } from '../src/config.js';
import { startFakeUpstream, type RecordedRequest } from '../src/dev/fake-upstream.js';
import { createLogger } from '../src/logger.js';
import { type RunningRecap, startRecap } from '../src/main.js';
import { conversationScript, SYSTEM_PROMPT, type ScriptMessage } from './long-conversation-script.js';
import {
  CONTEXT_WINDOW,
  MAIN_LATENCY_MS,
  MAX_OUTPUT_TOKENS,
  MODEL,
  SEED,
  SUMMARIZER_LATENCY_MS,
  SUMMARIZER_MODEL,
  TURNS,
  type Variant,
} from './long-conversation-variants.js';

// Plays the scripted conversation through the official SDK against one recap (in this process)
// in front of one fake upstream, and hands back what each side saw: the client's view of every
// turn and the fake's record of every request. Measuring is long-conversation-measure.ts's job.

export interface ClientTurn {
  /** What the client sent this turn (the whole history). */
  messages: ScriptMessage[];
  /** Date.now() just before the SDK call, comparable with the fake's `receivedAt`. */
  sentAt: number;
  /** Date.now() when recap's server got the request: what recap held is measured from here. */
  recapReceivedAt: number;
  action: string | null;
  tokensOutHeader: number;
  /** What recap's request path did for this turn, from recap's metrics (see requestPathCounts). */
  inlineSummarizerCalls: number;
  compactionLockPolls: number;
}

export interface SummarizerExchange {
  request: RecordedRequest;
  /** The text the fake summarizer answered. */
  reply: string;
}

export interface Drive {
  turns: ClientTurn[];
  chatRequests: RecordedRequest[];
  summarizer: SummarizerExchange[];
  /** recap's own counters: background job outcomes and summarizer calls by mode. */
  backgroundJobs: Record<string, number>;
  summarizerCallsByMode: Record<string, number>;
  wallMs: number;
}

/** Discards recap's log lines: the bench reads recap's metrics instead. */
class NullSink extends Writable {
  override _write(_chunk: Buffer, _enc: string, cb: () => void) {
    cb();
  }
}

function configFor(variant: Variant, fakeUrl: string) {
  const raw = {
    server: { log_level: 'warn', secret: 'bench-secret-0123456789abcdef' },
    upstreams: { fake: { base_url: fakeUrl } },
    background: { enabled: variant.backgroundEnabled },
    models: [
      {
        match: MODEL,
        upstream: 'fake',
        context_window: CONTEXT_WINDOW,
        max_output_tokens: MAX_OUTPUT_TOKENS,
        encoding: 'o200k_base',
        compaction: variant.compaction,
      },
    ],
  };
  return parseConfig(JSON.stringify(raw), `long-conversation-${variant.name}.json`, {});
}

/** The part of a prom-client counter read here. */
interface LabelledCounter {
  get(): Promise<{ values: { labels: Partial<Record<string, string | number>>; value: number; metricName?: string }[] }>;
}

async function counterTotals(counter: LabelledCounter, label: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const v of (await counter.get()).values) {
    const key = String(v.labels[label]);
    out[key] = (out[key] ?? 0) + v.value;
  }
  return out;
}

/**
 * Two of recap's metrics that only its request path moves: inline summarizer calls, and polls of
 * the compaction lock (a request waiting for a compaction someone else is making: rule 9). Their
 * change across one turn says whether that turn waited on a summarizer, whatever the timing noise.
 */
async function requestPathCounts(metrics: RunningRecap['runtime']['metrics']): Promise<{ inline: number; lockPolls: number }> {
  const calls = await counterTotals(metrics.summarizerCalls, 'mode');
  const polls = (await metrics.storeDuration.get()).values.find(
    (v) => v.metricName === 'recap_store_duration_seconds_count' && v.labels.op === 'is_locked',
  );
  return { inline: calls.inline ?? 0, lockPolls: polls?.value ?? 0 };
}

function replyText(body: Buffer): string {
  const parsed = JSON.parse(body.toString('utf8')) as { choices?: { message?: { content?: string | null } }[] };
  return parsed.choices?.[0]?.message?.content ?? '';
}

export async function driveConversation(variant: Variant): Promise<Drive> {
  const fake = await startFakeUpstream({ summarizerModel: SUMMARIZER_MODEL, summarizerLatencyMs: SUMMARIZER_LATENCY_MS, latencyMs: MAIN_LATENCY_MS });
  const recap = await startRecap(configFor(variant, fake.url), { port: 0, host: '127.0.0.1', logger: createLogger('warn', new NullSink()) });
  const client = new OpenAI({
    baseURL: `${recap.url}/v1`,
    apiKey: 'sk-bench-key',
    maxRetries: 0,
    defaultHeaders: { 'x-conversation-id': `long-conversation-${variant.name}` },
  });
  // Only the client's chat requests reach recap's server (summarizer calls go from recap to the
  // fake directly), one at a time, so the n-th arrival is the n-th turn's.
  const arrivals: number[] = [];
  recap.server.prependListener('request', () => arrivals.push(Date.now()));
  try {
    const started = performance.now();
    const history: ScriptMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }];
    const turns: ClientTurn[] = [];
    for (const step of conversationScript(SEED, TURNS)) {
      history.push(...step.toolExchange, step.user);
      const messages = [...history];
      const before = await requestPathCounts(recap.runtime.metrics);
      const sentAt = Date.now();
      const { data, response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
      const after = await requestPathCounts(recap.runtime.metrics);
      const recapReceivedAt = arrivals[turns.length];
      if (recapReceivedAt === undefined) throw new Error(`recap's server saw no request for turn ${turns.length + 1}`);
      turns.push({
        messages,
        sentAt,
        recapReceivedAt,
        action: response.headers.get('x-recap-action'),
        tokensOutHeader: Number(response.headers.get('x-recap-tokens-out')),
        inlineSummarizerCalls: after.inline - before.inline,
        compactionLockPolls: after.lockPolls - before.lockPolls,
      });
      history.push({ role: 'assistant', content: data.choices[0]?.message.content ?? '' });
    }
    // A background job still running would be a summarizer call the totals miss.
    await recap.runtime.background.idle();
    const wallMs = performance.now() - started;
    return {
      turns,
      chatRequests: fake.chatRequests(),
      summarizer: fake.summarizerRequests().map((request) => ({ request, reply: replyText(fake.sentBytes(request)) })),
      backgroundJobs: await counterTotals(recap.runtime.metrics.backgroundJobs, 'outcome'),
      summarizerCallsByMode: await counterTotals(recap.runtime.metrics.summarizerCalls, 'mode'),
      wallMs,
    };
  } finally {
    await recap.close();
    await fake.close();
  }
}
