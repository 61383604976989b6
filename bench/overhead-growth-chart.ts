// The chart of the growth table (overhead-growth.ts): what recap costs over the byte pipe against
// the size of the conversation's history, for one or more runs of the table (a build before a
// change and after it), as an SVG: per run, the CPU per request over the pipe's (what load moves
// least) and the p50 latency over the pipe's.
// Run: npx tsx bench/overhead-growth-chart.ts OUT.svg LABEL=results.json[#[PATTERN/]PATH] [LABEL=results.json[#[PATTERN/]PATH] ...]
// (PATH: `below` or `past` the prepare line, or `reused`; PATTERN: `steps` (the default) or `turns`;
// a results file from before the patterns has the steps' paths alone, one from before the paths one table.)
import { readFile, writeFile } from 'node:fs/promises';
import type { GrowthPath, GrowthPathName, GrowthPaths, GrowthPattern, GrowthResult } from './overhead-growth.js';

const WIDTH = 960;
const HEIGHT = 420;
const LEFT = 80;
const RIGHT = 220;
const TOP = 50;
const BOTTOM = 60;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const PALETTE = ['#7a869a', '#e8590c', '#1c7ed6', '#2f9e44'];
const GRID = '#e9ecef';
const TEXT = '#212529';

export interface ChartRun {
  label: string;
  result: Pick<GrowthPath, 'sizes'>;
}

interface Series {
  label: string;
  color: string;
  dashed: boolean;
  points: [number, number][];
}

function tickStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function seriesOf(runs: readonly ChartRun[]): Series[] {
  return runs.flatMap((run, i) => {
    const sizes = Object.values(run.result.sizes);
    const mb = (bytes: number) => bytes / 1e6;
    const cpu: [number, number][] = sizes.map((f) => [mb(f.bodyBytes.last), (f.targets.recap?.cpuMsPerRequest ?? 0) - (f.targets.pipe?.cpuMsPerRequest ?? 0)]);
    const p50: [number, number][] = sizes.map((f) => [mb(f.bodyBytes.last), f.recapOverPipe?.p50 ?? 0]);
    const color = PALETTE[i % PALETTE.length]!;
    return [
      { label: `${run.label}: CPU over the pipe's`, color, dashed: false, points: cpu },
      { label: `${run.label}: p50 over the pipe`, color, dashed: true, points: p50 },
    ];
  });
}

export function renderGrowthChart(runs: readonly ChartRun[], title: string): string {
  const series = seriesOf(runs);
  const xMax = Math.ceil(Math.max(...series.flatMap((s) => s.points.map(([x]) => x))));
  const yMax = Math.max(1, ...series.flatMap((s) => s.points.map(([, y]) => y))) * 1.05;
  const x = (v: number) => LEFT + (v / xMax) * PLOT_W;
  const y = (v: number) => TOP + PLOT_H - (Math.max(0, v) / yMax) * PLOT_H;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12" fill="${TEXT}">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${LEFT}" y="24" font-size="15" font-weight="bold">${esc(title)}</text>`,
  ];
  const yStep = tickStep(yMax, 6);
  for (let v = 0; v <= yMax; v += yStep) {
    out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${y(v)}" y2="${y(v)}" stroke="${GRID}"/>`);
    out.push(`<text x="${LEFT - 8}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
  }
  const xStep = tickStep(xMax, 8);
  for (let v = 0; v <= xMax; v += xStep) {
    out.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${TOP + PLOT_H}" y2="${TOP + PLOT_H + 5}" stroke="${TEXT}"/>`);
    out.push(`<text x="${x(v)}" y="${TOP + PLOT_H + 18}" text-anchor="middle">${v}</text>`);
  }
  out.push(`<rect x="${LEFT}" y="${TOP}" width="${PLOT_W}" height="${PLOT_H}" fill="none" stroke="${TEXT}"/>`);
  out.push(`<text x="${LEFT + PLOT_W / 2}" y="${HEIGHT - 16}" text-anchor="middle">request body (MB of conversation history)</text>`);
  out.push(`<text transform="translate(22 ${TOP + PLOT_H / 2}) rotate(-90)" text-anchor="middle">ms per request, recap over the byte pipe</text>`);
  series.forEach((s, i) => {
    const path = s.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const [px, py] of s.points) {
      out.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3" fill="${s.color}"/>`);
      out.push(`<text x="${(x(px) + 5).toFixed(1)}" y="${(y(py) - 6).toFixed(1)}" font-size="10">${py.toFixed(1)}</text>`);
    }
    const ly = TOP + 10 + i * 20;
    out.push(
      `<line x1="${LEFT + PLOT_W + 12}" x2="${LEFT + PLOT_W + 36}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    out.push(`<text x="${LEFT + PLOT_W + 42}" y="${ly + 4}" font-size="10">${esc(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

async function main(args: string[]): Promise<void> {
  const [file, ...named] = args;
  if (!file || named.length === 0) throw new Error('usage: overhead-growth-chart.ts OUT.svg LABEL=results.json[#PATH] [...]');
  const runs = await Promise.all(
    named.map(async (arg) => {
      const at = arg.indexOf('=');
      const [path, selector = 'below'] = arg.slice(at + 1).split('#') as [string, string | undefined];
      const [pattern, part] = (selector.includes('/') ? selector.split('/') : ['steps', selector]) as [GrowthPattern, GrowthPathName];
      const result = JSON.parse(await readFile(path, 'utf8')) as GrowthResult | { paths: GrowthPaths } | Pick<GrowthPath, 'sizes'>;
      const table = 'patterns' in result ? result.patterns[pattern]?.[part] : 'paths' in result ? result.paths[part] : result;
      if (!table) throw new Error(`${path} has no table for the path "${part}"`);
      return { label: arg.slice(0, at), result: table };
    }),
  );
  await writeFile(file, renderGrowthChart(runs, 'Growing conversation: recap over the byte pipe, per request, by history size'));
  process.stdout.write(`written to ${file}\n`);
}

await main(process.argv.slice(2));
