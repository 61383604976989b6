// @ts-check
// Charts, drawn by uPlot (loaded by index.html from recap's own copy of the npm package).
import { short } from './dom.js';

/**
 * @typedef {{ label: string, values: (number | null)[], color: string, dash?: number[], points?: boolean }} Line
 * @typedef {{ x: number[], time: boolean, lines: Line[], width: number, height?: number, xLabel: string, yLabel?: string, log?: boolean }} ChartSpec
 */

// Ticks of a count axis (requests 1, 2, 3…): whole numbers only.
const WHOLE_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000];

/** The largest value of some lines, 0 when they have none. @param {Line[]} lines */
const peak = (lines) => Math.max(0, ...lines.flatMap((l) => l.values.filter((v) => v !== null)).map(Number));

/**
 * Whether the `top` lines rise so far above the `rest` that a linear axis would flatten those
 * against zero: an agent's task sends many times what its budget holds while recap forwards
 * about the budget. Then the chart takes a log axis.
 * @param {Line[]} top
 * @param {Line[]} rest
 */
export function needsLogAxis(top, rest) {
  const low = peak(rest);
  return low > 0 && peak(top) / low > 4;
}

/** Labels a log axis at 1, 2 and 5 times a power of ten only (its other ticks stay unlabelled). @param {number[]} ticks */
const logLabels = (ticks) =>
  ticks.map((t) => {
    const m = Math.round(t / 10 ** Math.floor(Math.log10(t)));
    return m === 1 || m === 2 || m === 5 ? short(t) : '';
  });

/**
 * A line chart; a `points` line is drawn as markers only (where it has a value). With `log`, the
 * y axis is logarithmic (zeros are left out: a log axis has no zero).
 * @param {HTMLElement} target
 * @param {ChartSpec} spec
 */
export function lineChart(target, spec) {
  // A single point makes no line: then every series shows its points.
  const lonely = spec.x.length < 2;
  const values = spec.lines.map((l) => (spec.log ? l.values.map((v) => (v !== null && v > 0 ? v : null)) : l.values));
  /** @type {uPlot.Options} */
  const options = {
    width: spec.width,
    height: spec.height ?? 260,
    scales: {
      x: spec.time ? { time: true } : { time: false, range: (_u, min, max) => [Math.min(min, 1), Math.max(max, min + 1)] },
      y: spec.log ? { distr: 3, log: 10 } : {},
    },
    axes: [
      spec.time ? { label: spec.xLabel } : { label: spec.xLabel, incrs: WHOLE_INCREMENTS, values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) },
      { size: 56, label: spec.yLabel ?? (spec.log ? 'tokens (log scale)' : ''), values: (_u, ticks) => (spec.log ? logLabels(ticks) : ticks.map((t) => short(t))) },
    ],
    legend: { live: true },
    series: [
      { label: spec.xLabel },
      ...spec.lines.map((line) => ({
        label: line.label,
        stroke: line.color,
        width: line.points ? 0 : 2,
        ...(line.dash ? { dash: line.dash } : {}),
        ...(line.points ? { paths: () => null, points: { show: true, size: 10, fill: line.color, stroke: line.color } } : { points: { show: lonely, size: 7, fill: line.color } }),
        value: (/** @type {uPlot} */ _u, /** @type {number | null} */ v) => (v === null ? '–' : short(v)),
      })),
    ],
  };
  return new uPlot(options, [spec.x, ...values], target);
}

export const COLORS = {
  sent: '#7a8699',
  forwarded: '#2563eb',
  saved: '#16a34a',
  projected: '#d97706',
  budget: '#b91c1c',
  summary: '#7c3aed',
  clearing: '#0891b2',
  degraded: '#dc2626',
  errors: '#dc2626',
};

/** A width that fits the element's box (its content, padding taken off). @param {HTMLElement} box */
export function widthOf(box) {
  const style = getComputedStyle(box);
  const inner = box.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
  return Math.max(220, Math.min(1100, Math.floor(inner)));
}
