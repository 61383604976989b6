// Turns the overhead bench's measurements into figures relative to the direct upstream, checks
// them against the acceptance targets of the overhead issue, and lays out the printed tables.
import { round3, summarize, type Summary } from './overhead-stats.js';
import type { Throughput } from './overhead-throughput.js';
import type { TargetName, Unavailable } from './overhead-targets.js';

export type SizeLabel = '20KB' | '400KB';

export interface TargetFigures {
  p50: number;
  p99: number;
  /** Over the direct upstream. */
  addedP50: number;
  addedP99: number;
  n: number;
  rps?: number;
  failed?: number;
  ttfbP50?: number;
  ttfbAddedP50?: number;
  /** CPU of the target's own process per request at concurrency 1 (`direct`: the upstream's). */
  cpuMsPerRequest?: number;
}

export interface SizeFigures {
  bodyBytes: number;
  targets: Partial<Record<TargetName, TargetFigures>>;
  /** Targets measured for throughput alone (recap with two workers). */
  throughputOnly?: Partial<Record<TargetName, Throughput | undefined>>;
  /** recap on bodies it has never seen (token cache and store cold). */
  recapCold?: { n: number; p50: number; directP50: number; addedP50: number };
}

export function sizeFigures(
  bodyBytes: number,
  latency: Map<TargetName, number[]>,
  ttfb: Map<TargetName, number[]>,
  throughput: Map<TargetName, Throughput>,
  cpu: Map<TargetName, number | undefined>,
): SizeFigures {
  const lat = new Map([...latency].map(([k, v]) => [k, summarize(v)] as const));
  const first = new Map([...ttfb].map(([k, v]) => [k, summarize(v)] as const));
  const base = lat.get('direct') as Summary;
  const baseTtfb = first.get('direct');
  const targets: SizeFigures['targets'] = {};
  for (const [name, s] of lat) {
    const t = first.get(name);
    targets[name] = {
      p50: s.p50,
      p99: s.p99,
      addedP50: round3(s.p50 - base.p50),
      addedP99: round3(s.p99 - base.p99),
      n: s.n,
      rps: throughput.get(name)?.rps,
      failed: throughput.get(name)?.failed,
      ttfbP50: t?.p50,
      ttfbAddedP50: t && baseTtfb ? round3(t.p50 - baseTtfb.p50) : undefined,
      cpuMsPerRequest: cpu.get(name),
    };
  }
  return { bodyBytes, targets };
}

export interface Check {
  check: string;
  target: string;
  actual: number | string;
  met: boolean | null;
}

export interface LoopFigures {
  p99Ms: number;
  maxMs: number;
}

export function acceptance(sizes: Record<SizeLabel, SizeFigures>, loop: LoopFigures, startupMs: number): Check[] {
  const checks: Check[] = [];
  const limits: Record<SizeLabel, { p50: number; rps: number }> = { '20KB': { p50: 0.3, rps: 0.75 }, '400KB': { p50: 2.5, rps: 0.5 } };
  for (const size of ['20KB', '400KB'] as const) {
    const { recap, pipe, portkey } = sizes[size].targets;
    if (!recap || !pipe) continue;
    const overPipe = round3(recap.p50 - pipe.p50);
    checks.push({ check: `${size} p50 added over pipe`, target: `<= ${limits[size].p50} ms`, actual: overPipe, met: overPipe <= limits[size].p50 });
    checks.push({
      check: `${size} p50 added below Portkey's`,
      target: `< ${portkey ? portkey.addedP50 : 'n/a'} ms`,
      actual: recap.addedP50,
      met: portkey ? recap.addedP50 < portkey.addedP50 : null,
    });
    const ratio = recap.rps && pipe.rps ? round3(recap.rps / pipe.rps) : Number.NaN;
    checks.push({ check: `${size} rps c=32 vs pipe`, target: `>= ${limits[size].rps}`, actual: ratio, met: ratio >= limits[size].rps });
    const ttfb = recap.ttfbAddedP50 !== undefined && pipe.ttfbAddedP50 !== undefined ? round3(recap.ttfbAddedP50 - pipe.ttfbAddedP50) : Number.NaN;
    checks.push({ check: `${size} TTFB added vs pipe's`, target: '<= 1 ms', actual: ttfb, met: ttfb <= 1 });
  }
  checks.push({ check: 'event-loop p99 while counting', target: '< 20 ms', actual: loop.p99Ms, met: loop.p99Ms < 20 });
  checks.push({ check: 'startup to /readyz', target: '< 2000 ms', actual: round3(startupMs), met: startupMs < 2000 });
  return checks;
}

/** One row per target and size: what console.table prints. */
export function tableRows(sizes: Record<string, SizeFigures>, unavailable: Unavailable[]): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  for (const [size, figures] of Object.entries(sizes)) {
    for (const u of unavailable) {
      rows.push({ target: u.name, size, 'p50 ms': 'unavailable', 'p50 added': 'n/a', 'p99 added': 'n/a', 'rps c=32': 'n/a', 'TTFB added': 'n/a' });
    }
    for (const [name, t] of Object.entries(figures.targets)) {
      rows.push({
        target: name,
        size,
        'p50 ms': t.p50,
        'p50 added': t.addedP50,
        'p99 added': t.addedP99,
        'rps c=32': t.rps ?? 'n/a',
        'TTFB added': t.ttfbAddedP50 ?? 'n/a',
        'CPU ms/req': t.cpuMsPerRequest ?? 'n/a',
      });
    }
    for (const [name, t] of Object.entries(figures.throughputOnly ?? {})) {
      rows.push({ target: name, size, 'p50 ms': 'n/a', 'p50 added': 'n/a', 'p99 added': 'n/a', 'rps c=32': t?.rps ?? 'n/a', 'TTFB added': 'n/a', 'CPU ms/req': 'n/a' });
    }
    if (figures.recapCold) {
      rows.push({
        target: 'recap (cold)',
        size,
        'p50 ms': figures.recapCold.p50,
        'p50 added': figures.recapCold.addedP50,
        'p99 added': 'n/a',
        'rps c=32': 'n/a',
        'TTFB added': 'n/a',
        'CPU ms/req': 'n/a',
      });
    }
  }
  return rows;
}
