// @ts-check
import { api, credentialText, session } from './api.js';
import { COLORS, lineChart, widthOf } from './charts.js';
import { conversationHref } from './conversations.js';
import { card, count, el, money, ms, num, percent, short, table, when } from './dom.js';
import { tenantFilter, tenantQueryOf } from './tenant-filter.js';

/**
 * @typedef {{ p50: number | null, p95: number | null }} Latency
 * @typedef {{ requests: number, tokens_in: number, tokens_out: number, tokens_saved: number, projected_tokens_saved: number,
 *   summarizer_calls: number, summarizer_tokens: number, over_budget: number, errors: number, recalls: number, cached_tokens: number,
 *   cost: number, cost_saved: number, projected_cost: number, projected_cost_saved: number,
 *   actions: Record<string, number>, audit: Record<string, number>, latency_ms: Latency, own_latency_ms: Latency }} Figures
 * @typedef {{ at: string, status: number, code: string | null, model: string, route: string, tenant: string, client?: string | null, conversation: string | null }} ErrorItem
 */

const RANGES = ['1h', '24h', '7d', '30d'];
const PLAIN = /** @type {const} */ ([
  'requests',
  'tokens_in',
  'tokens_out',
  'tokens_saved',
  'projected_tokens_saved',
  'summarizer_calls',
  'summarizer_tokens',
  'over_budget',
  'errors',
]);

/** Sums the bucket figures the chart draws. @param {Figures[]} all */
function sum(all) {
  const total = /** @type {Record<(typeof PLAIN)[number], number>} */ (Object.fromEntries(PLAIN.map((k) => [k, 0])));
  for (const f of all) for (const key of PLAIN) total[key] += f[key];
  return total;
}

/** @param {Record<string, number>} counts */
const countsText = (counts) =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${num(n)}`)
    .join(' · ') || '–';

/** `1h`, or the custom range `from`–`to` (datetime-local values), from the location. @param {URLSearchParams} params */
function rangeOf(params) {
  const from = params.get('from');
  const to = params.get('to');
  if (from)
    return {
      query: `from=${encodeURIComponent(new Date(from).toISOString())}${to ? `&to=${encodeURIComponent(new Date(to).toISOString())}` : ''}`,
      name: 'custom',
      from,
      to: to ?? '',
    };
  const name = RANGES.includes(params.get('range') ?? '') ? /** @type {string} */ (params.get('range')) : '24h';
  return { query: `range=${name}`, name, from: '', to: '' };
}

/** The range links and a form for any range. @param {ReturnType<typeof rangeOf>} range @param {string} tenant */
function rangePicker(range, tenant) {
  const from = /** @type {HTMLInputElement} */ (el('input', { type: 'datetime-local', id: 'range-from', 'aria-label': 'From', value: range.from }));
  const to = /** @type {HTMLInputElement} */ (el('input', { type: 'datetime-local', id: 'range-to', 'aria-label': 'To', value: range.to }));
  const form = el(
    'form',
    {
      class: 'custom-range',
      onsubmit: (event) => {
        event.preventDefault();
        if (from.value) location.hash = `#/overview?from=${encodeURIComponent(from.value)}${to.value ? `&to=${encodeURIComponent(to.value)}` : ''}${tenant}`;
      },
    },
    from,
    el('span', {}, '–'),
    to,
    el('button', { type: 'submit', class: 'small' }, 'Show'),
  );
  return el(
    'div',
    { class: 'ranges' },
    RANGES.map((r) => el('a', { href: `#/overview?range=${r}${tenant}`, class: r === range.name ? 'active' : '' }, r)),
    form,
  );
}

/** @param {Figures} f */
const latencyText = (f) => `${ms(f.latency_ms.p50)} / ${ms(f.latency_ms.p95)}`;
/** @param {Figures} f */
const ownText = (f) => `${ms(f.own_latency_ms.p50)} / ${ms(f.own_latency_ms.p95)}`;

/** The overview's figures, tables and error list (redrawn on each refresh). @param {any} data @param {boolean} admin */
function content(data, admin) {
  /** @type {(Figures & { model: string, mode: string | null })[]} */
  const models = data.models;
  /** @type {(Figures & { route: string })[]} */
  const routes = data.routes;
  /** @type {Figures} */
  const total = data.total;
  /** @type {ErrorItem[]} */
  const errors = data.errors;
  const audited = models.some((m) => m.mode === 'audit' || m.projected_tokens_saved > 0);
  const priced = models.some((m) => m.cost > 0 || m.projected_cost > 0);

  const cards = el(
    'div',
    { class: 'cards' },
    card('Requests', num(total.requests), count(total.errors, 'error')),
    card('Latency p50 / p95', latencyText(total), `recap’s own ${ownText(total)}`),
    card('Tokens sent', short(total.tokens_in), 'by the clients'),
    card('Tokens forwarded', short(total.tokens_out), 'to the upstreams'),
    card('Tokens saved', short(total.tokens_saved), `${percent(total.tokens_saved, total.tokens_in)} of what was sent`),
    audited ? card('Projected savings', short(total.projected_tokens_saved), 'audited models') : null,
    priced ? card('Cost', money(total.cost), `saved ${money(total.cost_saved)}`) : null,
    priced && total.projected_cost > 0 ? card('Projected cost', money(total.projected_cost), `audited models: ${money(total.projected_cost_saved)} less`) : null,
    total.cached_tokens > 0 ? card('Cached', percent(total.cached_tokens, total.tokens_out), `${short(total.cached_tokens)} prompt tokens from the provider’s cache`) : null,
    card('Recalls', num(total.recalls), 'recap_recall calls answered'),
    card('Summarizer', count(total.summarizer_calls, 'call'), `${short(total.summarizer_tokens)} tokens`),
    card('Over budget', num(total.over_budget), 'newest step alone did not fit'),
    card('Degraded', num(total.actions.degraded ?? 0), 'oldest rounds dropped'),
  );

  const perModel = models.length
    ? table(
        [
          'Model',
          'Mode',
          'Requests',
          'Errors',
          'Latency p50 / p95',
          'recap’s own p50 / p95',
          'Sent',
          'Forwarded',
          'Saved',
          'Projected saved',
          ...(priced ? ['Cost', 'Cost saved'] : []),
          'Recalls',
          'Actions',
          'Audit',
          'Summarizer',
          'Over budget',
        ],
        models,
        (m) => [
          m.model,
          m.mode ?? '–',
          num(m.requests),
          num(m.errors),
          latencyText(m),
          ownText(m),
          short(m.tokens_in),
          short(m.tokens_out),
          `${short(m.tokens_saved)} (${percent(m.tokens_saved, m.tokens_in)})`,
          m.projected_tokens_saved ? short(m.projected_tokens_saved) : '–',
          ...(priced ? [m.projected_cost > 0 ? `${money(m.cost)} (projected ${money(m.projected_cost)})` : money(m.cost), money(m.cost_saved)] : []),
          num(m.recalls),
          countsText(m.actions),
          countsText(m.audit),
          `${count(m.summarizer_calls, 'call')}, ${short(m.summarizer_tokens)} tokens`,
          num(m.over_budget),
        ],
        'models',
      )
    : el('p', { class: 'empty' }, 'No requests in this range yet.');

  const perRoute = routes.length
    ? table(
        ['Route', 'Requests', 'Errors', 'Latency p50 / p95', 'recap’s own p50 / p95'],
        routes,
        (r) => [r.route, num(r.requests), num(r.errors), latencyText(r), ownText(r)],
        'routes',
      )
    : el('p', { class: 'empty' }, 'No requests in this range yet.');

  const errorList = errors.length
    ? table(
        ['Time', 'Status', 'Code', 'Model', 'Route', ...(admin ? ['Tenant'] : []), 'Conversation'],
        errors,
        (e) => [
          when(e.at),
          String(e.status),
          e.code ?? 'from the upstream',
          e.model,
          e.route,
          ...(admin ? [e.client ?? `${e.tenant.slice(0, 10)}…`] : []),
          e.conversation ? el('a', { href: conversationHref({ conversation: e.conversation, tenant: admin ? e.tenant : undefined }), class: 'conversation-link' }, 'open') : '–',
        ],
        'errors',
      )
    : el('p', { class: 'empty' }, 'No errors in this range.');

  return el(
    'div',
    {},
    cards,
    el('h2', {}, 'Tokens over time'),
    el('div', { class: 'chart', id: 'overview-chart' }),
    el('h2', {}, 'Requests and errors over time'),
    el('div', { class: 'chart', id: 'requests-chart' }),
    el('h2', {}, 'Per model'),
    el(
      'p',
      { class: 'note' },
      'Every model, pass-through requests included (recap reads no model from them); latency is the whole request, recap’s own is its time before forwarding.',
    ),
    el('div', { class: 'table-wrap' }, perModel),
    el('h2', {}, 'Per route'),
    el('div', { class: 'table-wrap' }, perRoute),
    el('h2', {}, `Errors (${errors.length})`),
    el('div', { class: 'table-wrap' }, errorList),
  );
}

/** What the page shows of an overview, without the range's ends (they move with the clock). @param {any} data */
const figuresOf = (data) => JSON.stringify([data.total, data.models, data.routes, data.errors, data.notices, data.buckets]);

/** The overview: what recap sent, forwarded and saved over time, per model and route, and its errors. @param {URLSearchParams} params */
export async function renderOverview(params) {
  const s = session();
  const admin = s?.kind === 'admin';
  const range = rangeOf(params);
  const tenant = tenantQueryOf(params);
  const path = `/recap/v1/overview?${range.query}${tenant}`;
  let data = await api(path);
  const box = el('div', { id: 'overview-content' });
  const notices = el('div', { class: 'notices', role: 'status' });
  /** @type {ReturnType<typeof lineChart>[]} */
  let charts = [];
  let picked = '';

  const drawCharts = () => {
    for (const c of charts) c.destroy();
    charts = [];
    const tokensBox = /** @type {HTMLElement} */ (box.querySelector('#overview-chart'));
    const requestsBox = /** @type {HTMLElement} */ (box.querySelector('#requests-chart'));
    if (data.buckets.length === 0) {
      for (const b of [tokensBox, requestsBox]) b.append(el('p', { class: 'empty' }, 'Nothing to chart yet.'));
      return;
    }
    /** @type {{ at: string, models: Record<string, Figures> }[]} */
    const buckets = data.buckets;
    // The API leaves out the buckets that hold nothing: the chart shows them as zero, over the whole range.
    const step = data.bucket_seconds * 1000;
    /** @type {number[]} */
    const times = [];
    for (let t = Math.floor(Date.parse(data.from) / step) * step; t <= Date.parse(data.to); t += step) times.push(t);
    const byTime = new Map(buckets.map((b) => [Date.parse(b.at), sum(picked ? [b.models[picked]].filter((f) => f !== undefined) : Object.values(b.models))]));
    const totals = times.map((t) => byTime.get(t) ?? sum([]));
    const audited = /** @type {{ mode: string | null, projected_tokens_saved: number }[]} */ (data.models).some((m) => m.mode === 'audit' || m.projected_tokens_saved > 0);
    const lines = [
      { label: 'sent', values: totals.map((t) => t.tokens_in), color: COLORS.sent },
      { label: 'forwarded', values: totals.map((t) => t.tokens_out), color: COLORS.forwarded },
      { label: 'saved', values: totals.map((t) => t.tokens_saved), color: COLORS.saved },
    ];
    if (audited) lines.push({ label: 'projected saved', values: totals.map((t) => t.projected_tokens_saved), color: COLORS.projected });
    const x = times.map((t) => t / 1000);
    charts.push(lineChart(tokensBox, { x, time: true, lines, width: widthOf(tokensBox), xLabel: 'time' }));
    const requestLines = [
      { label: 'requests', values: totals.map((t) => t.requests), color: COLORS.forwarded },
      { label: 'errors', values: totals.map((t) => t.errors), color: COLORS.errors },
    ];
    charts.push(lineChart(requestsBox, { x, time: true, lines: requestLines, width: widthOf(requestsBox), height: 200, xLabel: 'time', yLabel: 'requests' }));
  };

  const fill = () => {
    box.replaceChildren(content(data, admin));
    notices.replaceChildren(.../** @type {string[]} */ (data.notices).map((n) => el('p', { class: 'notice' }, n)));
    const models = /** @type {{ model: string }[]} */ (data.models);
    if (picked && !models.some((m) => m.model === picked)) picked = '';
    const picker = /** @type {HTMLSelectElement} */ (
      el(
        'select',
        { id: 'chart-model', 'aria-label': 'Model' },
        el('option', { value: '' }, 'All models'),
        models.map((m) => el('option', { value: m.model, selected: m.model === picked }, m.model)),
      )
    );
    picker.addEventListener('change', () => {
      picked = picker.value;
      drawCharts();
    });
    box.querySelector('#overview-chart')?.before(el('div', { class: 'chart-controls' }, picker));
  };

  const node = el(
    'section',
    { class: 'overview' },
    el('div', { class: 'title-row' }, el('h1', {}, 'Overview'), rangePicker(range, tenant)),
    s ? el('p', { class: 'note', id: 'credential' }, credentialText(s)) : null,
    admin ? tenantFilter('#/overview', params) : null,
    notices,
    box,
  );
  fill();
  return {
    node,
    mounted: drawCharts,
    /** Draws again only what changed: a chart someone is reading stays as it is while the figures do. */
    async refresh() {
      const fresh = await api(path);
      if (figuresOf(fresh) === figuresOf(data)) return;
      data = fresh;
      fill();
      drawCharts();
    },
  };
}
