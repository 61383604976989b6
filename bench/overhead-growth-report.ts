// The growth table (overhead-growth.ts) as console tables and as a markdown table ready for the
// docs, from one run or several (`npx tsx bench/overhead-growth-table.ts a.json b.json c.json`).
import { GROWTH_GOALS_MS, type GrowthFigures, type GrowthLabel, type GrowthPath, type GrowthPathName, type GrowthPattern, type GrowthResult } from './overhead-growth.js';
import { round3 } from './overhead-stats.js';

type Row = Record<string, string | number | boolean | null | undefined>;

function* cells(result: GrowthResult): Generator<{ pattern: GrowthPattern; path: GrowthPathName; p: GrowthPath; size: GrowthLabel; f: GrowthFigures }> {
  for (const [pattern, paths] of Object.entries(result.patterns) as [GrowthPattern, Partial<Record<GrowthPathName, GrowthPath>>][])
    for (const [path, p] of Object.entries(paths) as [GrowthPathName, GrowthPath][])
      for (const [size, f] of Object.entries(p.sizes) as [GrowthLabel, GrowthFigures][]) yield { pattern, path, p, size, f };
}

/** Every pattern's and path's goals, one row each: what console.table prints. */
export function growthGoals(result: GrowthResult): Row[] {
  return Object.entries(result.patterns).flatMap(([pattern, paths]) => Object.entries(paths).flatMap(([path, p]) => p.goals.map((g) => ({ pattern, path, ...g }))));
}

/** Every pattern's and path's curve, one row each. */
export function growthCurves(result: GrowthResult): Row[] {
  return Object.entries(result.patterns).flatMap(([pattern, paths]) => Object.entries(paths).map(([path, p]) => ({ pattern, path, ...p.curve })));
}

/** One row per cell and target: what console.table prints. */
export function growthRows(result: GrowthResult): Row[] {
  const rows: Row[] = [];
  for (const { pattern, path, size, f } of cells(result))
    for (const [name, t] of Object.entries(f.targets)) {
      if (name === 'direct') continue;
      const over = name === 'recap' ? f.recapOverPipe : name === 'portkey' ? f.portkeyOverPipe : undefined;
      rows.push({
        pattern,
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
  return rows;
}

const ms = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : `${x.toFixed(2)}`);
const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const cpuOver = (f: GrowthFigures) => {
  const recap = f.targets.recap?.cpuMsPerRequest;
  const pipe = f.targets.pipe?.cpuMsPerRequest;
  return recap === undefined || pipe === undefined ? undefined : round3(recap - pipe);
};

/**
 * The table for the docs from one or more runs of the same build: per cell the median run's p50
 * over the pipe (the median of the runs' p50s), their range, the median of the rest.
 */
export function growthMarkdown(runs: readonly GrowthResult[]): string {
  const byCell = new Map<string, { pattern: GrowthPattern; path: GrowthPathName; size: GrowthLabel; fs: GrowthFigures[] }>();
  for (const run of runs)
    for (const { pattern, path, size, f } of cells(run)) {
      const key = `${pattern}/${path}/${size}`;
      const cell = byCell.get(key) ?? { pattern, path, size, fs: [] };
      cell.fs.push(f);
      byCell.set(key, cell);
    }
  const many = runs.length > 1;
  const header = [
    'pattern',
    'path',
    'history',
    'body, messages',
    `recap over the pipe, p50${many ? ` (median of ${runs.length} runs)` : ''}`,
    ...(many ? ['p50, range of the runs'] : []),
    'p95 over the pipe',
    "recap's CPU over the pipe's",
    'own p50',
    'Portkey over the pipe, p50',
    'goal (p50)',
  ];
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const { pattern, path, size, fs } of byCell.values()) {
    const p50s = fs.map((f) => f.recapOverPipe?.p50 ?? Number.NaN);
    const p50 = mid(p50s);
    const goal = GROWTH_GOALS_MS[size];
    const f = fs[0]!;
    const cpus = fs.map(cpuOver).filter((x): x is number => x !== undefined);
    const row = [
      pattern,
      path,
      size.replace('KB', ' KB').replace('MB', ' MB'),
      `${(f.bodyBytes.last / 1e6).toFixed(2)} MB, ${f.messages.last.toLocaleString('en-US')}`,
      `**${ms(p50)}** ms`,
      ...(many ? [`${ms(Math.min(...p50s))}–${ms(Math.max(...p50s))} ms`] : []),
      `${ms(mid(fs.map((x) => x.recapOverPipe?.p95 ?? Number.NaN)))} ms`,
      cpus.length ? `${ms(mid(cpus))} ms` : '–',
      `${ms(mid(fs.map((x) => x.recapOwn.p50)))} ms`,
      `${ms(mid(fs.map((x) => x.portkeyOverPipe?.p50 ?? Number.NaN)))} ms`,
      goal === undefined ? '–' : `≤ ${goal} ms: ${p50 <= goal ? 'met' : 'not met'}`,
    ];
    lines.push(`| ${row.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
