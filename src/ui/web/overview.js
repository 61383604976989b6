// @ts-check
import { api } from './api.js';
import { COLORS, lineChart, widthOf } from './charts.js';
import { card, count, el, num, percent, short, table } from './dom.js';

/**
 * @typedef {{ requests: number, tokens_in: number, tokens_out: number, tokens_saved: number, projected_tokens_saved: number,
 *   summarizer_calls: number, summarizer_tokens: number, over_budget: number, errors: number,
 *   actions: Record<string, number>, audit: Record<string, number> }} Figures
 */

const RANGES = ['1h', '24h', '7d'];

/** @param {Figures[]} all @returns {Figures} */
function sum(all) {
  /** @type {Figures} */
  const total = {
    requests: 0,
    tokens_in: 0,
    tokens_out: 0,
    tokens_saved: 0,
    projected_tokens_saved: 0,
    summarizer_calls: 0,
    summarizer_tokens: 0,
    over_budget: 0,
    errors: 0,
    actions: {},
    audit: {},
  };
  for (const f of all) {
    for (const key of /** @type {const} */ ([
      'requests',
      'tokens_in',
      'tokens_out',
      'tokens_saved',
      'projected_tokens_saved',
      'summarizer_calls',
      'summarizer_tokens',
      'over_budget',
      'errors',
    ]))
      total[key] += f[key];
    for (const [k, v] of Object.entries(f.actions)) total.actions[k] = (total.actions[k] ?? 0) + v;
    for (const [k, v] of Object.entries(f.audit)) total.audit[k] = (total.audit[k] ?? 0) + v;
  }
  return total;
}

/** @param {Record<string, number>} counts */
const countsText = (counts) =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${num(n)}`)
    .join(' · ') || '–';

/** The overview: what recap sent, forwarded and saved over time, per model. @param {URLSearchParams} params */
export async function renderOverview(params) {
  const range = RANGES.includes(params.get('range') ?? '') ? /** @type {string} */ (params.get('range')) : '24h';
  const data = await api(`/recap/v1/overview?range=${range}`);
  /** @type {(Figures & { model: string, mode: string | null })[]} */
  const models = data.models;
  const total = sum(models);
  const audited = models.some((m) => m.mode === 'audit' || m.projected_tokens_saved > 0);

  const cards = el(
    'div',
    { class: 'cards' },
    card('Requests', num(total.requests), count(total.errors, 'error')),
    card('Tokens sent', short(total.tokens_in), 'by the clients'),
    card('Tokens forwarded', short(total.tokens_out), 'to the upstreams'),
    card('Tokens saved', short(total.tokens_saved), `${percent(total.tokens_saved, total.tokens_in)} of what was sent`),
    audited ? card('Projected savings', short(total.projected_tokens_saved), 'audited models') : null,
    card('Summarizer', count(total.summarizer_calls, 'call'), `${short(total.summarizer_tokens)} tokens`),
    card('Over budget', num(total.over_budget), 'newest step alone did not fit'),
    card('Degraded', num(total.actions.degraded ?? 0), 'oldest rounds dropped'),
  );

  const chartBox = el('div', { class: 'chart', id: 'overview-chart' });
  const rangeLinks = el(
    'div',
    { class: 'ranges' },
    RANGES.map((r) => el('a', { href: `#/overview?range=${r}`, class: r === range ? 'active' : '' }, r)),
  );
  const perModel = models.length
    ? table(
        ['Model', 'Mode', 'Requests', 'Sent', 'Forwarded', 'Saved', 'Projected saved', 'Actions', 'Audit', 'Summarizer', 'Over budget'],
        models,
        (m) => [
          m.model,
          m.mode ?? '–',
          num(m.requests),
          short(m.tokens_in),
          short(m.tokens_out),
          `${short(m.tokens_saved)} (${percent(m.tokens_saved, m.tokens_in)})`,
          m.projected_tokens_saved ? short(m.projected_tokens_saved) : '–',
          countsText(m.actions),
          countsText(m.audit),
          `${count(m.summarizer_calls, 'call')}, ${short(m.summarizer_tokens)} tokens`,
          num(m.over_budget),
        ],
        'models',
      )
    : el('p', { class: 'empty' }, 'No requests in this range yet.');

  const node = el(
    'section',
    { class: 'overview' },
    el('div', { class: 'title-row' }, el('h1', {}, 'Overview'), rangeLinks),
    cards,
    el('h2', {}, 'Tokens over time'),
    chartBox,
    el('h2', {}, 'Per model'),
    perModel,
  );

  const mounted = () => {
    if (data.buckets.length === 0) {
      chartBox.append(el('p', { class: 'empty' }, 'Nothing to chart yet.'));
      return;
    }
    /** @type {{ at: string, models: Record<string, Figures> }[]} */
    const buckets = data.buckets;
    // The API leaves out the buckets that hold nothing: the chart shows them as zero, over the whole range.
    const step = data.bucket_seconds * 1000;
    /** @type {number[]} */
    const times = [];
    for (let t = Math.floor(Date.parse(data.from) / step) * step; t <= Date.parse(data.to); t += step) times.push(t);
    /** @type {ReturnType<typeof lineChart> | undefined} */
    let chart;
    /** @param {string} model '' for all of them */
    const draw = (model) => {
      const byTime = new Map(buckets.map((b) => [Date.parse(b.at), sum(model ? [b.models[model]].filter((f) => f !== undefined) : Object.values(b.models))]));
      const totals = times.map((t) => byTime.get(t) ?? sum([]));
      const lines = [
        { label: 'sent', values: totals.map((t) => t.tokens_in), color: COLORS.sent },
        { label: 'forwarded', values: totals.map((t) => t.tokens_out), color: COLORS.forwarded },
        { label: 'saved', values: totals.map((t) => t.tokens_saved), color: COLORS.saved },
      ];
      if (audited) lines.push({ label: 'projected saved', values: totals.map((t) => t.projected_tokens_saved), color: COLORS.projected });
      chart?.destroy();
      chart = lineChart(chartBox, { x: times.map((t) => t / 1000), time: true, lines, width: widthOf(node), xLabel: 'time' });
    };
    const picker = /** @type {HTMLSelectElement} */ (
      el(
        'select',
        { id: 'chart-model', 'aria-label': 'Model' },
        el('option', { value: '' }, 'All models'),
        models.map((m) => el('option', { value: m.model }, m.model)),
      )
    );
    picker.addEventListener('change', () => draw(picker.value));
    chartBox.before(el('div', { class: 'chart-controls' }, picker));
    draw('');
  };
  return { node, mounted };
}
