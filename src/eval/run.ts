import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, createModelResolver, type ModelConfig } from '../config/config.js';
import { type RunningRecap, startRecap } from '../main.js';
import { createLogger } from '../observability/logger.js';
import { type OutputLimits, resolveBudget } from '../tokens/budget.js';
import { AnswerError, getJson, postJson } from './ask.js';
import { askProbe } from './ask-probe.js';
import { type Conversation, readConversation } from './conversation-file.js';
import { evictedBy, furthest, type InspectedCheckpoint } from './evicted.js';
import { LineCapture } from './log-capture.js';
import { buildProbes } from './probes.js';
import type { Answer, EvalReport, ProbeResult } from './report.js';
import { DEFAULT_MAX_PROBES } from './usage.js';

// `recap eval` as a client of a real recap: recap runs in this process (in-memory store, no
// background work, the config's upstreams and models), the conversation goes through it as one
// request (on the route its body is for: chat completions or Responses) and compacts exactly as a
// real request would, the inspection endpoint tells what was evicted (summarized, or cleared tool
// results), and each probe is asked through recap (which reuses its checkpoint: the model sees
// recap's view), once with recall off and once with recap_recall offered (when the model's config
// has recall on), and straight to the upstream with the whole history, when that fits the window.

export interface EvalOptions {
  file: string;
  config: Config;
  maxProbes?: number;
  /** The bearer credential the eval sends: the tenant, and the upstream's key when it has no api_key. */
  credential?: string;
  /** The window the full history is asked within (default the model's): a benchmark's fake upstream has none. */
  fullContextWindow?: number;
  progress?: (line: string) => void;
}

export async function runEval(opts: EvalOptions): Promise<EvalReport> {
  const progress = opts.progress ?? (() => {});
  const conversation = await readConversation(opts.file, opts.config.server.body_limit_bytes);
  const name = conversation.body.model;
  const model = createModelResolver(opts.config.models)(name);
  if (!model) throw new Error(`${opts.file}: no entry of the config's models matches "${name}"`);
  if (model.compaction.strategy === 'off') throw new Error(`model "${name}" (config "${model.match}") has compaction.strategy off: recap evicts nothing from it`);
  const logs = new LineCapture();
  const config = evalConfig(opts.config);
  // The very object recap resolves for this model: the probes asked without recall turn it off.
  const served = createModelResolver(config.models)(name)!;
  const recap = await startRecap(config, { port: 0, host: '127.0.0.1', logger: createLogger('warn', logs) });
  try {
    return await evaluate({ ...opts, progress }, conversation, served, recap, logs);
  } finally {
    await recap.close();
  }
}

/**
 * The user's config, but self-contained: in-memory store, no background jobs, loopback, quiet; its
 * models are the eval's own copies, since it switches their recall on and off between probes.
 */
function evalConfig(config: Config): Config {
  return {
    ...config,
    models: config.models.map((m) => ({ ...m, recall: { ...m.recall } })),
    server: { ...config.server, host: '127.0.0.1', port: 0, secret: config.server.secret ?? randomBytes(24).toString('base64url') },
    store: { ...config.store, url: undefined },
    background: { ...config.background, enabled: false },
  };
}

async function evaluate(
  opts: EvalOptions & { progress: (line: string) => void },
  { route, body }: Conversation,
  model: ModelConfig,
  recap: RunningRecap,
  logs: LineCapture,
): Promise<EvalReport> {
  const id = `recap-eval-${randomUUID()}`;
  const credential = opts.credential ?? 'recap-eval';
  const headers = { authorization: `Bearer ${credential}`, [opts.config.server.conversation_header[0]!]: id };
  const url = `${recap.url}${route.path}`;
  const { stream: _stream, stream_options: _options, ...request } = body;
  const messages = route.messages(body);

  opts.progress(
    `compacting ${messages.length} ${route.name === 'chat' ? 'messages' : 'items'} through recap (${model.compaction.strategy}, ${model.compaction.ledger ? 'ledger on' : 'ledger off'})`,
  );
  const first = await postJson('recap', url, request, headers);
  const action = first.headers.get('x-recap-action');
  if (action === 'degraded')
    throw new Error(`compaction failed (${logs.lastDegradeReason() ?? 'unknown reason'}): recap dropped the oldest rounds instead; check the summarizer config`);
  if (action !== 'compacted') {
    throw new Error(
      `${opts.file}: nothing is evicted: the conversation fits (${first.headers.get('x-recap-tokens-in')} tokens; compaction starts above ${model.compaction.trigger_ratio} × the ${first.headers.get('x-recap-budget')}-token budget)`,
    );
  }
  const record = await storedRecord(`${recap.url}/recap/v1/conversations/${encodeURIComponent(id)}${route.inspectQuery}`, headers.authorization);
  const checkpoint = furthest(record.checkpoints as InspectedCheckpoint[])!;
  const { evicted, kept } = evictedBy(messages, route.pinned(body), checkpoint);
  const probes = buildProbes({ evicted: evicted.map((e) => e.message), kept, maxProbes: opts.maxProbes ?? DEFAULT_MAX_PROBES });
  if (probes.length === 0)
    throw new Error(`${opts.file}: no probe could be made from the ${evicted.length} evicted messages (no identifiers, facts or decisions that the kept part does not repeat)`);

  const upstream = opts.config.upstreams[model.upstream]!;
  const direct = { url: `${upstream.base_url.replace(/\/+$/, '')}${route.upstreamPath}`, headers: route.directHeaders(upstream.api_key ?? credential) };
  const reserved = resolveBudget(model, request as OutputLimits, 0).outputReservation;
  const recallOn = model.recall.enabled;
  const recallSkipped = recallOn ? null : `recall is off for model "${body.model}" (config "${model.match}": recall.enabled false)`;
  // Continuations recap sent: the sum of its hops histogram.
  const hopsSent = async () => (await recap.runtime.metrics.recallHops.get()).values.filter((v) => v.metricName?.endsWith('_sum')).reduce((n, v) => n + v.value, 0);
  let fullSkipped: string | null = null;
  const results: ProbeResult[] = [];
  for (const [i, probe] of probes.entries()) {
    opts.progress(`probe ${i + 1}/${probes.length} (${probe.kind})`);
    const asking = { url, headers, route, expected: probe.expected, promptTokens: (r: { headers: Headers }) => Number(r.headers.get('x-recap-tokens-out')) };
    const asked = route.withProbe(request as typeof body, probe.question);
    model.recall.enabled = false;
    const { answer: compacted, reply: viaRecap } = await askProbe({ ...asking, what: 'recap', body: asked });
    model.recall.enabled = recallOn;
    let withRecall: Answer | null = null;
    if (recallOn) {
      const before = await hopsSent();
      withRecall = (await askProbe({ ...asking, what: 'recap', body: route.withProbe(request as typeof body, probe.question, 'auto') })).answer;
      withRecall.hops = (await hopsSent()) - before;
    }
    const tokensIn = Number(viaRecap.headers.get('x-recap-tokens-in'));
    // recap's count of the whole history with the probe: the upstream is not asked what cannot fit.
    const window = opts.fullContextWindow ?? model.context_window;
    if (fullSkipped === null && tokensIn + reserved > window)
      fullSkipped = `the full history (${tokensIn} tokens + ${reserved} for the reply) does not fit the ${window}-token context window`;
    let full: Answer | null = null;
    if (fullSkipped === null) {
      try {
        full = (
          await askProbe({
            ...asking,
            what: `upstream "${model.upstream}"`,
            url: direct.url,
            headers: direct.headers,
            body: asked,
            promptTokens: () => tokensIn,
          })
        ).answer;
      } catch (err) {
        if (!(err instanceof AnswerError && err.contextTooLong)) throw err;
        fullSkipped = `the upstream refused the full history as too long (${err.status})`;
      }
    }
    results.push({ probe, evicted: evicted[probe.message]!.how, compacted, with_recall: withRecall, full });
  }
  if (fullSkipped !== null) for (const r of results) r.full = null;

  const metrics = recap.runtime.metrics;
  return {
    file: opts.file,
    route: route.name,
    model: body.model,
    configMatch: model.match,
    strategy: model.compaction.strategy,
    ledger: model.compaction.ledger,
    messages: messages.length,
    summarizedMessages: evicted.filter((e) => e.how === 'summarized').length,
    clearedMessages: evicted.filter((e) => e.how === 'cleared').length,
    summaryTokens: checkpoint.summary_tokens,
    tokensFull: Number(first.headers.get('x-recap-tokens-in')),
    tokensCompacted: Number(first.headers.get('x-recap-tokens-out')),
    summarizerCalls: await sum(metrics.summarizerCalls),
    summarizerTokens: await sum(metrics.summarizerTokens),
    ledgerCounts: { kept: await ledgerOf('kept'), appended: await ledgerOf('appended'), dropped: await ledgerOf('dropped') },
    fullSkipped,
    recallSkipped,
    results,
  };

  async function ledgerOf(outcome: string) {
    return sum(metrics.ledgerIdentifiers, (l) => l.model === model.match && l.outcome === outcome);
  }
}

/** The sum of a metric's values (those whose labels `where` picks). */
async function sum(
  metric: { get(): Promise<{ values: { labels: Record<string, unknown>; value: number }[] }> },
  where: (labels: Record<string, unknown>) => boolean = () => true,
): Promise<number> {
  return (await metric.get()).values.filter((v) => where(v.labels)).reduce((s, v) => s + v.value, 0);
}

/**
 * The conversation's checkpoints. recap writes a checkpoint once its reply has gone out whole, and
 * the client can have the reply a moment before that write is done: a 404 is waited out, briefly.
 */
async function storedRecord(url: string, authorization: string): Promise<any> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    try {
      return (await getJson('recap inspection', url, { authorization })).json;
    } catch (err) {
      if (!(err instanceof AnswerError && err.status === 404) || Date.now() > deadline) throw err;
      await sleep(20);
    }
  }
}
