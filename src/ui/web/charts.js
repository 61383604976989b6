// @ts-check
// Charts, drawn by uPlot (loaded by index.html from recap's own copy of the npm package).
import { short } from './dom.js';

/**
 * @typedef {{ label: string, values: (number | null)[], color: string, dash?: number[], points?: boolean }} Line
 * @typedef {{ x: number[], time: boolean, lines: Line[], width: number, height?: number, xLabel: string }} ChartSpec
 */

/**
 * A line chart; a `points` line is drawn as markers only (where it has a value).
 * @param {HTMLElement} target
 * @param {ChartSpec} spec
 */
export function lineChart(target, spec) {
  // A single point makes no line: then every series shows its points.
  const lonely = spec.x.length < 2;
  /** @type {uPlot.Options} */
  const options = {
    width: spec.width,
    height: spec.height ?? 260,
    scales: { x: { time: spec.time } },
    axes: [{ label: spec.xLabel }, { size: 56, values: (_u, ticks) => ticks.map((t) => short(t)) }],
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
  return new uPlot(options, [spec.x, ...spec.lines.map((l) => l.values)], target);
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
};

/** A width that fits the element's box. @param {HTMLElement} box */
export const widthOf = (box) => Math.max(320, Math.min(1100, box.clientWidth - 32));
