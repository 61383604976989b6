// The overhead bench's growth table: a conversation at 20 KB, 400 KB, 2 MB and 8 MB of history,
// grown two ways (`steps`: an agent's tool steps, one new message per request; `turns`: the
// assistant's reply and the user's next message per request, a tool call with its JSON result
// every third), on models whose window the history fills to a given share, too many bytes to be
// shown to fit by their number alone. Three paths: below the prepare line (three quarters of the
// budget: recap forwards each request before counting it, shown to fit by the exact counts of what
// it counted before and the bytes of what is new, forward-first.ts); past it (between 0.8 and 0.9:
// forwarded the same way, then the record is read and the plan made beside the upstream's work,
// rule 10); and past the trigger (the history at 1.3 times the budget, compacted once during
// warm-up: every request reads the record, is counted, planned and rewritten to reuse the stored
// summary, recap_recall offered, before it goes upstream). recap runs as users run it: the Redis
// store, a configured client's key. The same requests go to the sink upstream directly, the byte
// pipe, Portkey and recap, interleaved request by request. recap's own time is its request log's
// total minus the upstream's (from forwarding to the reply's headers).
// Run alone: npm run bench -- overhead-growth   (part of `overhead` too; needs Redis)
import { parseChatRequest } from '../src/wire/chat/parse-request.js';
import { countRequest } from '../src/tokens/count-request.js';
import { msPerRequest, snapshot } from './overhead-cpu.js';
import { type GrowthHistory, growthBody, growthHistory, newMessages } from './overhead-growth-bodies.js';
import { newTurns, turnsHistory } from './overhead-growth-turns.js';
import { type GrowthModel, type GrowthTargets, startGrowthTargets } from './overhead-growth-targets.js';
import { type Client, clientFor, roundTrip } from './overhead-latency.js';
import { round3, summarize } from './overhead-stats.js';
import type { TargetName } from './overhead-targets.js';

export type GrowthLabel = '20KB' | '400KB' | '2MB' | '8MB';
/** Below the prepare line, past it (and below the trigger), or past the trigger (a stored summary reused). */
export type GrowthPathName = 'below' | 'past' | 'reused';
/**
 * How the conversation grows: `steps`, one message per request (an agent's tool step: its call,
 * then its result; overhead-growth-bodies.ts); `turns`, the assistant's reply and the user's next
 * message per request, a tool call with its JSON result every third (overhead-growth-turns.ts).
 */
export type GrowthPattern = 'steps' | 'turns';

/** What recap answers on each path, once warmed up. */
const EXPECTED_ACTION: Record<GrowthPathName, string> = { below: 'none', past: 'none', reused: 'reused' };

export const GROWTH_PARAMS = {
  sizes: { '20KB': 20_000, '400KB': 400_000, '2MB': 2_000_000, '8MB': 8_000_000 } as Record<GrowthLabel, number>,
  /** Requests per pass (a pass starts again from the history); a turns pass at 20 KB is short, so that it stays near its size. */
  requestsPerPass: { steps: { '20KB': 8, '400KB': 8, '2MB': 8, '8MB': 8 }, turns: { '20KB': 2, '400KB': 8, '2MB': 8, '8MB': 8 } } as Record<
    GrowthPattern,
    Record<GrowthLabel, number>
  >,
  /**
   * Measured passes per size, after one pass of warm-up: 288 requests at 20 KB, 192 at 400 KB and
   * 128 at 2 MB, where the goals are tight (with 96 and 64, a 20 KB cell's median over the pipe
   * moved by up to 0.3 ms from run to run, a 2 MB cell's by up to 1.5 ms).
   */
  passes: { steps: { '20KB': 36, '400KB': 24, '2MB': 16, '8MB': 5 }, turns: { '20KB': 144, '400KB': 24, '2MB': 16, '8MB': 5 } } as Record<
    GrowthPattern,
    Record<GrowthLabel, number>
  >,
  /** Per path, the window is set so that a pass's last request fills this share of the budget (prepare_ratio is 0.8). */
  endFill: { below: 0.75, past: 0.86, reused: 1.3 } as Record<GrowthPathName, number>,
  maxOutputTokens: 1024,
  seed: 28,
};

/** The goals, recap's p50 over the pipe's, on every path and pattern (issue 39; 8 MB: issue 28's). */
export const GROWTH_GOALS_MS: Partial<Record<GrowthLabel, number>> = { '20KB': 0.5, '400KB': 1.0, '2MB': 2.5, '8MB': 8 };

/** One pass: its new messages in order, and how many of them each of its requests sends. */
export interface Pass {
  messages: string[];
  upTo: number[];
}

export interface Size {
  label: GrowthLabel;
  path: GrowthPathName;
  pattern: GrowthPattern;
  history: GrowthHistory;
  model: GrowthModel;
  /** Pass 0 warms up. */
  passes: Pass[];
}

export interface GrowthTargetFigures {
  p50: number;
  p95: number;
  /** Over the sink upstream directly, at the same percentile. */
  addedP50: number;
  addedP95: number;
  cpuMsPerRequest?: number;
}

export interface GrowthFigures {
  historyBytes: number;
  bodyBytes: { first: number; last: number };
  messages: { first: number; last: number };
  /** x-recap-tokens-in over x-recap-budget, on the first and the last request of a pass. */
  fill: { first: number; last: number };
  contextWindow: number;
  requests: number;
  targets: Partial<Record<TargetName, GrowthTargetFigures>>;
  /** recap's request log: total minus the upstream's time to its reply's headers. */
  recapOwn: { p50: number; p95: number };
  recapOverPipe?: { p50: number; p95: number };
  portkeyOverPipe?: { p50: number; p95: number };
}

export function prepareSize(label: GrowthLabel, path: GrowthPathName = 'below', pattern: GrowthPattern = 'steps'): Size {
  const { sizes, requestsPerPass, passes, endFill, maxOutputTokens, seed } = GROWTH_PARAMS;
  const model = `gpt-growth-${pattern}-${label.toLowerCase()}-${path}`;
  const requests = requestsPerPass[pattern][label];
  const history = pattern === 'steps' ? growthHistory(model, sizes[label], seed) : turnsHistory(model, sizes[label], seed);
  const all = Array.from({ length: passes[pattern][label] + 1 }, (_, p): Pass => {
    if (pattern === 'turns') return newTurns(requests, seed * 1000 + p);
    return { messages: newMessages(requests, seed * 1000 + p), upTo: Array.from({ length: requests }, (_, k) => k + 1) };
  });
  const end = countRequest(parseChatRequest(growthBody(history, all[0]!.messages)), undefined);
  const budget = Math.ceil((end.prompt_tokens - end.tools_tokens) / endFill[path]);
  return { label, path, pattern, history, passes: all, model: { match: model, contextWindow: budget + maxOutputTokens + end.tools_tokens, maxOutputTokens } };
}

const fill = (headers: Record<string, string | string[] | undefined>) => round3(Number(headers['x-recap-tokens-in']) / Number(headers['x-recap-budget']));

async function recapLines(targets: GrowthTargets, model: string, count: number): Promise<Record<string, unknown>[]> {
  const mine = () => targets.recapLog.filter((l) => l.msg === 'request' && l.model === model);
  // pino writes asynchronously: the last lines may trail the last reply a little.
  for (let i = 0; i < 200 && mine().length < count; i++) await new Promise((r) => setTimeout(r, 10));
  return mine().slice(-count);
}

async function measureSize(targets: GrowthTargets, clients: Client[], size: Size): Promise<GrowthFigures> {
  const { history, passes, label } = size;
  const recap = clients.find((c) => c.target.name === 'recap')!;
  const samples = new Map<TargetName, number[]>(clients.map((c) => [c.target.name, []]));
  const fills: number[] = [];
  const bytes: number[] = [];
  const pids = targets.live.flatMap((t) => (t.pid === undefined ? [] : [t.pid]));
  let cpuBefore = snapshot(pids);
  let sent = 0;
  for (const [p, pass] of passes.entries()) {
    if (p === 1) cpuBefore = snapshot(pids);
    for (const k of pass.upTo) {
      const body = growthBody(history, pass.messages.slice(0, k));
      sent++;
      for (let j = 0; j < clients.length; j++) {
        const c = clients[(sent + j) % clients.length]!;
        const t = await roundTrip(c, body);
        const action = t.headers['x-recap-action'];
        if (c === recap && p > 0 && action !== EXPECTED_ACTION[size.path])
          throw new Error(`${size.pattern} ${label} ${size.path}: recap answered x-recap-action ${String(action)}`);
        if (c === recap && p === 0) fills.push(fill(t.headers));
        if (p > 0) samples.get(c.target.name)!.push(t.ms);
      }
      if (p === 0) bytes.push(body.length);
    }
  }
  const cpuAfter = snapshot(pids);
  const measured = samples.get('recap')!.length;
  const lines = await recapLines(targets, history.model, measured);
  const own = summarize(lines.map((l) => Number(l.durationMs) - Number(l.upstreamHeadersMs)));
  const stats = new Map([...samples].map(([name, xs]) => [name, summarize(xs)] as const));
  const direct = stats.get('direct')!;
  const figures: GrowthFigures['targets'] = {};
  for (const t of targets.live) {
    const s = stats.get(t.name)!;
    // The sink serves every target's requests: its CPU is per request of any target.
    const served = t.name === 'direct' ? measured * targets.live.length : measured;
    const cpu = t.pid === undefined ? undefined : msPerRequest(cpuBefore, cpuAfter, t.pid, served);
    figures[t.name] = { p50: s.p50, p95: s.p95, addedP50: round3(s.p50 - direct.p50), addedP95: round3(s.p95 - direct.p95), cpuMsPerRequest: cpu };
  }
  const over = (name: TargetName) => {
    const s = stats.get(name);
    const pipe = stats.get('pipe')!;
    return s && { p50: round3(s.p50 - pipe.p50), p95: round3(s.p95 - pipe.p95) };
  };
  return {
    historyBytes: history.bytes,
    bodyBytes: { first: bytes[0]!, last: bytes.at(-1)! },
    messages: { first: history.messages.length + passes[0]!.upTo[0]!, last: history.messages.length + passes[0]!.messages.length },
    fill: { first: fills[0]!, last: fills.at(-1)! },
    contextWindow: size.model.contextWindow,
    requests: measured,
    targets: figures,
    recapOwn: { p50: own.p50, p95: own.p95 },
    recapOverPipe: over('recap'),
    portkeyOverPipe: over('portkey'),
  };
}

/** One path of the table: its sizes, the curve of its cost against size, and the goals. */
export interface GrowthPath {
  /** What a pass's last request fills of the budget. */
  endFill: number;
  sizes: Partial<Record<GrowthLabel, GrowthFigures>>;
  /** recap's p50 over the pipe (and its own time) against the body's size: a least-squares line. */
  curve: { overPipeMsPerMB: number; overPipeInterceptMs: number; ownMsPerMB: number; ownInterceptMs: number };
  goals: { size: GrowthLabel; goalMs: number; overPipeP50: number | undefined; met: boolean | null }[];
}

export type GrowthPaths = Partial<Record<GrowthPathName, GrowthPath>>;

/** How recap ran: its store and who the tenant is (GROWTH_STORE, GROWTH_CREDENTIAL). */
export interface GrowthSetup {
  store: 'redis' | 'memory';
  /** `client`: a configured client's key (`clients`); `caller`: the caller's own credential, forwarded. */
  credential: 'client' | 'caller';
}

export interface GrowthResult {
  params: typeof GROWTH_PARAMS;
  setup: GrowthSetup;
  portkey: { available: boolean; version?: string; reason?: string };
  patterns: Partial<Record<GrowthPattern, GrowthPaths>>;
}

function line(points: readonly [number, number][]): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
  return { slope: round3(slope), intercept: round3(my - slope * mx) };
}

function pathOf(path: GrowthPathName, out: GrowthPath['sizes']): GrowthPath {
  const endFill = GROWTH_PARAMS.endFill[path];
  const mb = (f: GrowthFigures) => f.bodyBytes.last / 1e6;
  const measured = Object.values(out);
  const overPipe = line(measured.map((f) => [mb(f), f.recapOverPipe?.p50 ?? Number.NaN]));
  const own = line(measured.map((f) => [mb(f), f.recapOwn.p50]));
  return {
    endFill,
    sizes: out,
    curve: { overPipeMsPerMB: overPipe.slope, overPipeInterceptMs: overPipe.intercept, ownMsPerMB: own.slope, ownInterceptMs: own.intercept },
    goals: (Object.entries(GROWTH_GOALS_MS) as [GrowthLabel, number][])
      .filter(([label]) => out[label])
      .map(([size, goalMs]) => {
        const actual = out[size]?.recapOverPipe?.p50;
        return { size, goalMs, overPipeP50: actual, met: actual === undefined ? null : actual <= goalMs };
      }),
  };
}

export interface GrowthSelection {
  labels?: readonly GrowthLabel[];
  paths?: readonly GrowthPathName[];
  patterns?: readonly GrowthPattern[];
  setup?: GrowthSetup;
}

/** The whole table (or the part `select` names) on its own targets: `recapCli` is the compiled CLI (overhead-build.ts). */
export async function measureGrowth(recapCli: string, select: GrowthSelection = {}): Promise<GrowthResult> {
  const labels = select.labels ?? (Object.keys(GROWTH_PARAMS.sizes) as GrowthLabel[]);
  const paths = select.paths ?? (Object.keys(GROWTH_PARAMS.endFill) as GrowthPathName[]);
  const patterns = select.patterns ?? (['steps', 'turns'] as const);
  const setup = select.setup ?? { store: 'redis', credential: 'client' };
  process.stdout.write(`  growth: preparing the conversations (${setup.store} store, ${setup.credential} credential)\n`);
  const sizes = patterns.flatMap((pattern) => paths.flatMap((path) => labels.map((label) => prepareSize(label, path, pattern))));
  const targets = await startGrowthTargets(
    recapCli,
    sizes.map((s) => s.model),
    setup,
  );
  const clients = targets.live.map((t) => clientFor(t));
  try {
    const out: GrowthResult['patterns'] = {};
    for (const pattern of patterns) {
      const byPath: GrowthPaths = {};
      for (const path of paths) {
        const figures: GrowthPath['sizes'] = {};
        for (const size of sizes.filter((s) => s.path === path && s.pattern === pattern)) {
          process.stdout.write(`  growth ${pattern} ${size.label}, ${path}: ${size.history.bytes} bytes of history, ${clients.length} targets\n`);
          figures[size.label] = await measureSize(targets, clients, size);
        }
        byPath[path] = pathOf(path, figures);
      }
      out[pattern] = byPath;
    }
    return {
      params: GROWTH_PARAMS,
      setup,
      portkey: targets.portkeyVersion ? { available: true, version: targets.portkeyVersion } : { available: false, reason: targets.unavailable[0]?.reason },
      patterns: out,
    };
  } finally {
    await Promise.all(clients.map((c) => c.pool.close()));
    await targets.stop();
  }
}
