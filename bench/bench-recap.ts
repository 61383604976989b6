import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { parseConfig } from '../src/config/config.js';
import { startFakeUpstream, type FakeUpstream, type RecordedRequest } from '../src/dev/fake-upstream.js';
import { createLogger } from '../src/observability/logger.js';
import { type RunningRecap, startRecap } from '../src/main.js';

// What the conversation benchmarks (long-conversation, agent-task) share: one recap (in this
// process) in front of one fake upstream with model and summarizer latency, an official SDK
// client, and per request what each side saw: the client's view of the turn, recap's own counters
// across it and the fake's record of every request. Measuring is conversation-measure.ts's job.

export type BenchMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export interface BenchSetup {
  /** Names the conversation (x-conversation-id) and the config file in error messages. */
  name: string;
  model: string;
  summarizerModel: string;
  contextWindow: number;
  maxOutputTokens: number;
  mainLatencyMs: number;
  summarizerLatencyMs: number;
  compaction: Record<string, unknown>;
  backgroundEnabled: boolean;
  /** The model's `pricing` (plans compaction by cost), when the bench gives it one. */
  pricing?: Record<string, number>;
}

export interface ClientTurn {
  /** What the client sent this turn (the whole history). */
  messages: BenchMessage[];
  /** Date.now() just before the SDK call, comparable with the fake's `receivedAt`. */
  sentAt: number;
  /** Date.now() when recap's server got the request: what recap held is measured from here. */
  recapReceivedAt: number;
  action: string | null;
  tokensOutHeader: number;
  budgetHeader: number;
  /** Changes of recap's request-path counters across the turn (see requestPathCounts). */
  inlineSummarizerCalls: number;
  lockReads: number;
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
  /** recap's own time per turn, in order: its request log's total minus the upstream's time to the reply's headers. */
  recapOwnMs: number[];
  /** The part of it before forwarding: the request log's forwardedMs (reading, counting, planning, rewriting). */
  recapBeforeForwardMs: number[];
  /** What recap's cache of seen items (src/seen/) held at the end: estimated bytes, items. */
  seenItems: { bytes: number; entries: number };
  wallMs: number;
}

/** Keeps recap's request log lines (one per request it served) and drops every other line. */
class RequestLines extends Writable {
  readonly lines: { durationMs: number; upstreamHeadersMs: number; forwardedMs: number }[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.includes('"msg":"request"')) continue;
      const { durationMs, upstreamHeadersMs, forwardedMs } = JSON.parse(line) as { durationMs: number; upstreamHeadersMs: number; forwardedMs: number };
      this.lines.push({ durationMs, upstreamHeadersMs, forwardedMs });
    }
    cb();
  }
}

function configFor(setup: BenchSetup, fakeUrl: string) {
  const raw = {
    server: { log_level: 'warn', secret: 'bench-secret-0123456789abcdef' },
    upstreams: { fake: { base_url: fakeUrl } },
    background: { enabled: setup.backgroundEnabled },
    models: [
      {
        match: setup.model,
        upstream: 'fake',
        context_window: setup.contextWindow,
        max_output_tokens: setup.maxOutputTokens,
        encoding: 'o200k_base',
        compaction: setup.compaction,
        ...(setup.pricing ? { pricing: setup.pricing } : {}),
      },
    ],
  };
  return parseConfig(JSON.stringify(raw), `${setup.name}.json`, {});
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
 * Two of recap's metrics: inline summarizer calls (only the request path makes them), and reads
 * of the conversation's lock table (a request claiming a compaction, or waiting for one someone
 * else is making: rule 9; a background job reads it too when it claims). Their change across one
 * turn, with the timing of the summarizer calls, says whether that turn waited on a summarizer.
 */
async function requestPathCounts(metrics: RunningRecap['runtime']['metrics']): Promise<{ inline: number; lockReads: number }> {
  const calls = await counterTotals(metrics.summarizerCalls, 'mode');
  const reads = (await metrics.storeDuration.get()).values.find((v) => v.metricName === 'recap_store_duration_seconds_count' && v.labels.op === 'read_locks');
  return { inline: calls.inline ?? 0, lockReads: reads?.value ?? 0 };
}

function replyText(body: Buffer): string {
  const parsed = JSON.parse(body.toString('utf8')) as { choices?: { message?: { content?: string | null } }[] };
  return parsed.choices?.[0]?.message?.content ?? '';
}

export interface BenchRecap {
  fake: FakeUpstream;
  /** One chat request through the SDK, recorded as a turn; `extra` adds fields such as `tools`. */
  send(
    messages: BenchMessage[],
    extra?: Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, 'model' | 'messages'>,
  ): Promise<OpenAI.Chat.Completions.ChatCompletion>;
  /** Waits for background jobs, then hands back everything recorded. */
  finish(): Promise<Drive>;
  close(): Promise<void>;
}

export async function startBenchRecap(setup: BenchSetup): Promise<BenchRecap> {
  const fake = await startFakeUpstream({ summarizerModel: setup.summarizerModel, summarizerLatencyMs: setup.summarizerLatencyMs, latencyMs: setup.mainLatencyMs });
  let recap: RunningRecap;
  const requestLines = new RequestLines();
  try {
    recap = await startRecap(configFor(setup, fake.url), { port: 0, host: '127.0.0.1', logger: createLogger('info', requestLines) });
  } catch (err) {
    await fake.close();
    throw err;
  }
  const client = new OpenAI({
    baseURL: `${recap.url}/v1`,
    apiKey: 'sk-bench-key',
    maxRetries: 0,
    defaultHeaders: { 'x-conversation-id': setup.name },
  });
  // Only the client's chat requests reach recap's server (summarizer calls go from recap to the
  // fake directly), one at a time, so the n-th arrival is the n-th turn's.
  const arrivals: number[] = [];
  recap.server.prependListener('request', () => arrivals.push(Date.now()));
  const turns: ClientTurn[] = [];
  const started = performance.now();

  return {
    fake,
    async send(messages, extra = {}) {
      const before = await requestPathCounts(recap.runtime.metrics);
      const sentAt = Date.now();
      const { data, response } = await client.chat.completions.create({ ...extra, model: setup.model, messages }).withResponse();
      const after = await requestPathCounts(recap.runtime.metrics);
      const recapReceivedAt = arrivals[turns.length];
      if (recapReceivedAt === undefined) throw new Error(`recap's server saw no request for turn ${turns.length + 1}`);
      turns.push({
        messages,
        sentAt,
        recapReceivedAt,
        action: response.headers.get('x-recap-action'),
        tokensOutHeader: Number(response.headers.get('x-recap-tokens-out')),
        budgetHeader: Number(response.headers.get('x-recap-budget')),
        inlineSummarizerCalls: after.inline - before.inline,
        lockReads: after.lockReads - before.lockReads,
      });
      return data;
    },
    async finish() {
      // A background job still running would be a summarizer call the totals miss.
      await recap.runtime.background.idle();
      return {
        turns,
        chatRequests: fake.chatRequests(),
        summarizer: fake.summarizerRequests().map((request) => ({ request, reply: replyText(fake.sentBytes(request)) })),
        backgroundJobs: await counterTotals(recap.runtime.metrics.backgroundJobs, 'outcome'),
        summarizerCallsByMode: await counterTotals(recap.runtime.metrics.summarizerCalls, 'mode'),
        recapOwnMs: requestLines.lines.map((l) => Math.round((l.durationMs - l.upstreamHeadersMs) * 100) / 100),
        recapBeforeForwardMs: requestLines.lines.map((l) => l.forwardedMs),
        seenItems: { bytes: recap.runtime.seen.bytes, entries: recap.runtime.seen.entries },
        wallMs: performance.now() - started,
      };
    },
    async close() {
      await recap.close();
      await fake.close();
    },
  };
}
