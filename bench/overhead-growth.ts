// The overhead bench's growth table: one agent's conversation at 20 KB, 400 KB, 2 MB and 8 MB of
// history, each request one new message longer than the one before (overhead-growth-bodies.ts), on
// models whose window the history fills to between half and nine tenths, too many bytes to be
// shown to fit by their number alone: the path of every conversation nearing its budget. Three
// paths: below the prepare line (three quarters of the budget: recap forwards each request
// before counting it, shown to fit by the exact counts of what it counted before and the bytes of
// what is new, forward-first.ts); past it (between 0.8 and 0.9: forwarded the same way, then the
// record is read and the plan made beside the upstream's work, rule 10); and past the trigger
// (the history at 1.3 times the budget, compacted once during warm-up: every request reads the
// record, is counted, planned and rewritten to reuse the stored summary, recap_recall offered,
// before it goes upstream). The same requests go to the sink upstream directly, the byte pipe,
// Portkey and recap, interleaved request by request. recap's own time is its request log's total
// minus the upstream's (from forwarding to the reply's headers).
// Run alone: npm run bench -- overhead-growth   (part of `overhead` too; needs Redis)
import { parseChatRequest } from '../src/wire/chat/parse-request.js';
import { countRequest } from '../src/tokens/count-request.js';
import { msPerRequest, snapshot } from './overhead-cpu.js';
import { type GrowthHistory, growthBody, growthHistory, newMessages } from './overhead-growth-bodies.js';
import { type GrowthModel, type GrowthTargets, startGrowthTargets } from './overhead-growth-targets.js';
import { type Client, clientFor, roundTrip } from './overhead-latency.js';
import { round3, summarize } from './overhead-stats.js';
import type { TargetName } from './overhead-targets.js';

export type GrowthLabel = '20KB' | '400KB' | '2MB' | '8MB';
/** Below the prepare line, past it (and below the trigger), or past the trigger (a stored summary reused). */
export type GrowthPathName = 'below' | 'past' | 'reused';

/** What recap answers on each path, once warmed up. */
const EXPECTED_ACTION: Record<GrowthPathName, string> = { below: 'none', past: 'none', reused: 'reused' };

export const GROWTH_PARAMS = {
  sizes: { '20KB': 20_000, '400KB': 400_000, '2MB': 2_000_000, '8MB': 8_000_000 } as Record<GrowthLabel, number>,
  /** Requests per pass, each adding one message; a pass starts again from the history. */
  newMessagesPerPass: 8,
  /** Measured passes per size, after one pass of warm-up. */
  passes: { '20KB': 12, '400KB': 12, '2MB': 8, '8MB': 5 } as Record<GrowthLabel, number>,
  /** Per path, the window is set so that a pass's last request fills this share of the budget (prepare_ratio is 0.8). */
  endFill: { below: 0.75, past: 0.86, reused: 1.3 } as Record<GrowthPathName, number>,
  maxOutputTokens: 1024,
  seed: 28,
};

/** Issue 28's goals: recap's p50 over the pipe's. */
export const GROWTH_GOALS_MS: Partial<Record<GrowthLabel, number>> = { '400KB': 1.0, '2MB': 2.5, '8MB': 8 };
/** The paths the goals are for: a history that fills half to nine tenths of the window (not past the trigger). */
const GOAL_PATHS: readonly GrowthPathName[] = ['below', 'past'];

export interface Size {
  label: GrowthLabel;
  path: GrowthPathName;
  history: GrowthHistory;
  model: GrowthModel;
  /** The new messages of each pass; pass 0 warms up. */
  passes: string[][];
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

export function prepareSize(label: GrowthLabel, path: GrowthPathName = 'below'): Size {
  const { sizes, newMessagesPerPass, passes, endFill, maxOutputTokens, seed } = GROWTH_PARAMS;
  const history = growthHistory(`gpt-growth-${label.toLowerCase()}-${path}`, sizes[label], seed);
  const all = Array.from({ length: passes[label] + 1 }, (_, p) => newMessages(newMessagesPerPass, seed * 1000 + p));
  const end = countRequest(parseChatRequest(growthBody(history, all[0]!)), undefined);
  const budget = Math.ceil((end.prompt_tokens - end.tools_tokens) / endFill[path]);
  return { label, path, history, passes: all, model: { match: history.model, contextWindow: budget + maxOutputTokens + end.tools_tokens, maxOutputTokens } };
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
  for (const [p, added] of passes.entries()) {
    if (p === 1) cpuBefore = snapshot(pids);
    for (let k = 1; k <= added.length; k++) {
      const body = growthBody(history, added.slice(0, k));
      sent++;
      for (let j = 0; j < clients.length; j++) {
        const c = clients[(sent + j) % clients.length]!;
        const t = await roundTrip(c, body);
        const action = t.headers['x-recap-action'];
        if (c === recap && p > 0 && action !== EXPECTED_ACTION[size.path]) throw new Error(`${label} ${size.path}: recap answered x-recap-action ${String(action)}`);
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
    messages: { first: history.messages.length + 1, last: history.messages.length + passes[0]!.length },
    fill: { first: fills[0]!, last: fills.at(-1)! },
    contextWindow: size.model.contextWindow,
    requests: measured,
    targets: figures,
    recapOwn: { p50: own.p50, p95: own.p95 },
    recapOverPipe: over('recap'),
    portkeyOverPipe: over('portkey'),
  };
}

/** One path of the table: its sizes, the curve of its cost against size, and issue 28's goals. */
export interface GrowthPath {
  /** What a pass's last request fills of the budget. */
  endFill: number;
  sizes: Partial<Record<GrowthLabel, GrowthFigures>>;
  /** recap's p50 over the pipe (and its own time) against the body's size: a least-squares line. */
  curve: { overPipeMsPerMB: number; overPipeInterceptMs: number; ownMsPerMB: number; ownInterceptMs: number };
  goals: { size: GrowthLabel; goalMs: number; overPipeP50: number | undefined; met: boolean | null }[];
}

export interface GrowthResult {
  params: typeof GROWTH_PARAMS;
  portkey: { available: boolean; version?: string; reason?: string };
  paths: Partial<Record<GrowthPathName, GrowthPath>>;
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
      .filter(([label]) => out[label] && GOAL_PATHS.includes(path))
      .map(([size, goalMs]) => {
        const actual = out[size]?.recapOverPipe?.p50;
        return { size, goalMs, overPipeP50: actual, met: actual === undefined ? null : actual <= goalMs };
      }),
  };
}

/** The whole table on its own targets: `recapCli` is the compiled CLI (overhead-build.ts). */
export async function measureGrowth(
  recapCli: string,
  labels: readonly GrowthLabel[] = Object.keys(GROWTH_PARAMS.sizes) as GrowthLabel[],
  paths: readonly GrowthPathName[] = Object.keys(GROWTH_PARAMS.endFill) as GrowthPathName[],
): Promise<GrowthResult> {
  process.stdout.write('  growth: preparing the conversations\n');
  const sizes = paths.flatMap((path) => labels.map((label) => prepareSize(label, path)));
  const targets = await startGrowthTargets(
    recapCli,
    sizes.map((s) => s.model),
  );
  const clients = targets.live.map((t) => clientFor(t));
  try {
    const out: GrowthResult['paths'] = {};
    for (const path of paths) {
      const figures: GrowthPath['sizes'] = {};
      for (const size of sizes.filter((s) => s.path === path)) {
        process.stdout.write(`  growth ${size.label}, ${path}: ${size.history.bytes} bytes of history, ${clients.length} targets\n`);
        figures[size.label] = await measureSize(targets, clients, size);
      }
      out[path] = pathOf(path, figures);
    }
    return {
      params: GROWTH_PARAMS,
      portkey: targets.portkeyVersion ? { available: true, version: targets.portkeyVersion } : { available: false, reason: targets.unavailable[0]?.reason },
      paths: out,
    };
  } finally {
    await Promise.all(clients.map((c) => c.pool.close()));
    await targets.stop();
  }
}

/** Every path's goals, one row each: what console.table prints. */
export function growthGoals(result: GrowthResult): Record<string, string | number | boolean | null | undefined>[] {
  return Object.entries(result.paths).flatMap(([path, p]) => p.goals.map((g) => ({ path, ...g })));
}

/** Every path's curve, one row each. */
export function growthCurves(result: GrowthResult): Record<string, string | number>[] {
  return Object.entries(result.paths).map(([path, p]) => ({ path, ...p.curve }));
}

/** One row per size and target: what console.table prints. */
export function growthRows(result: GrowthResult): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  for (const [path, p] of Object.entries(result.paths))
    for (const [size, f] of Object.entries(p.sizes)) {
      for (const [name, t] of Object.entries(f.targets)) {
        if (name === 'direct') continue;
        const over = name === 'recap' ? f.recapOverPipe : name === 'portkey' ? f.portkeyOverPipe : undefined;
        rows.push({
          path,
          size,
          target: name,
          'p50 added': t.addedP50,
          'p95 added': t.addedP95,
          'p50 over pipe': over?.p50 ?? '-',
          'p95 over pipe': over?.p95 ?? '-',
          'CPU ms/req': t.cpuMsPerRequest ?? 'n/a',
          'own p50': name === 'recap' ? f.recapOwn.p50 : '-',
          'own p95': name === 'recap' ? f.recapOwn.p95 : '-',
        });
      }
    }
  return rows;
}
