import type { TurnPoint } from './conversation-measure.js';

// The charts of the conversation benches (docs/long-conversation.svg, docs/agent-task.svg): per
// request, the tokens the client sent and the tokens recap forwarded, the budget, and the requests
// where a new summary took effect. Two panels share the request axis: the top one at full scale
// (the client's prompt grows without bound), the bottom one zoomed on the budget, where the
// forwarded prompt's sawtooth would otherwise be a flat line.

const WIDTH = 960;
const LEFT = 80;
const RIGHT = 24;
const PLOT_W = WIDTH - LEFT - RIGHT;
const COLORS = { client: '#7a869a', forwarded: '#e8590c', budget: '#c92a2a', event: '#1c7ed6', grid: '#e9ecef', text: '#212529' };

interface Panel {
  top: number;
  height: number;
  yMax: number;
  title: string;
}

/** A round step (1, 2 or 5 × 10^k) giving about `count` ticks up to `max`. */
function tickStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
}

const fmt = (n: number) => (n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(n));
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function scales(panel: Panel, turns: number) {
  return {
    x: (turn: number) => LEFT + ((turn - 1) / Math.max(1, turns - 1)) * PLOT_W,
    y: (tokens: number) => panel.top + panel.height - (Math.min(tokens, panel.yMax) / panel.yMax) * panel.height,
  };
}

function axes(panel: Panel, turns: number): string[] {
  const { x, y } = scales(panel, turns);
  const out: string[] = [];
  const yStep = tickStep(panel.yMax, 5);
  for (let v = 0; v <= panel.yMax; v += yStep) {
    out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${y(v)}" y2="${y(v)}" stroke="${COLORS.grid}"/>`);
    out.push(`<text x="${LEFT - 8}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`);
  }
  const xStep = tickStep(turns, 10);
  for (let t = xStep; t <= turns; t += xStep) {
    out.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${panel.top + panel.height}" y2="${panel.top + panel.height + 5}" stroke="${COLORS.text}"/>`);
    out.push(`<text x="${x(t)}" y="${panel.top + panel.height + 18}" text-anchor="middle">${t}</text>`);
  }
  out.push(`<rect x="${LEFT}" y="${panel.top}" width="${PLOT_W}" height="${panel.height}" fill="none" stroke="${COLORS.text}"/>`);
  out.push(`<text x="${LEFT}" y="${panel.top - 8}" font-weight="bold">${esc(panel.title)}</text>`);
  out.push(`<text transform="translate(18 ${panel.top + panel.height / 2}) rotate(-90)" text-anchor="middle">tokens per request</text>`);
  return out;
}

function series(panel: Panel, points: readonly TurnPoint[], budget: number, withClient: boolean): string[] {
  const { x, y } = scales(panel, points.length);
  const line = (pick: (p: TurnPoint) => number, color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="1.6" points="${points.map((p) => `${x(p.turn).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(' ')}"/>`;
  const out: string[] = [];
  if (withClient) out.push(line((p) => p.clientTokens, COLORS.client));
  out.push(line((p) => p.forwardedTokens, COLORS.forwarded));
  out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${y(budget)}" y2="${y(budget)}" stroke="${COLORS.budget}" stroke-dasharray="6 4" stroke-width="1.4"/>`);
  for (const p of points.filter((q) => q.summaryChanged)) {
    out.push(`<circle cx="${x(p.turn).toFixed(1)}" cy="${y(p.forwardedTokens).toFixed(1)}" r="3.5" fill="${COLORS.event}"/>`);
  }
  return out;
}

function legend(top: number, budget: number): string[] {
  const items: [string, string][] = [
    [`<line x1="0" x2="24" y1="0" y2="0" stroke="${COLORS.client}" stroke-width="2"/>`, 'tokens the client sent'],
    [`<line x1="0" x2="24" y1="0" y2="0" stroke="${COLORS.forwarded}" stroke-width="2"/>`, 'tokens recap forwarded upstream'],
    [`<line x1="0" x2="24" y1="0" y2="0" stroke="${COLORS.budget}" stroke-width="2" stroke-dasharray="6 4"/>`, `budget (${budget.toLocaleString('en-US')})`],
    [`<circle cx="12" cy="0" r="3.5" fill="${COLORS.event}"/>`, 'compaction (summary changed)'],
  ];
  // No text metrics in hand-written SVG: ~6.5 px per character of 12 px sans-serif is close enough.
  let x = LEFT;
  return items.map(([mark, text]) => {
    const item = `<g transform="translate(${x} ${top})">${mark}<text x="30" y="4">${esc(text)}</text></g>`;
    x += 30 + text.length * 6.5 + 24;
    return item;
  });
}

export function renderChart(points: readonly TurnPoint[], budget: number, title: string, xLabel = 'turn'): string {
  const maxClient = Math.max(...points.map((p) => p.clientTokens));
  const full: Panel = { top: 80, height: 300, yMax: Math.ceil(maxClient / tickStep(maxClient, 5)) * tickStep(maxClient, 5), title: 'Full scale' };
  const zoom: Panel = { top: 450, height: 240, yMax: Math.ceil((budget * 1.15) / 5000) * 5000, title: 'Zoomed on the budget (forwarded only)' };
  const height = zoom.top + zoom.height + 56;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12" fill="${COLORS.text}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="26" font-size="15" font-weight="bold">${esc(title)}</text>`,
    ...legend(50, budget),
    ...axes(full, points.length),
    ...series(full, points, budget, true),
    ...axes(zoom, points.length),
    ...series(zoom, points, budget, false),
    `<text x="${LEFT + PLOT_W / 2}" y="${height - 14}" text-anchor="middle">${esc(xLabel)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
