// @ts-check
import { ApiError, api, session, tenantQuery } from './api.js';
import { COLORS, lineChart, needsLogAxis, widthOf } from './charts.js';
import { conversationName } from './conversations.js';
import { card, count, el, money, num, short, table, when } from './dom.js';
import { viewMapSection } from './view-map.js';

/**
 * @typedef {{ event_id: string, at: string, action: string, audit?: string, compaction?: 'summary' | 'clearing', tokens_in: number, tokens_out: number,
 *   projected_tokens_out?: number, budget?: number, cleared: number, summarizer_calls: number, summarizer_tokens: number, recalls: number,
 *   latency_ms: number, own_ms?: number, status: number, outcome?: string, error?: string, view?: [number, number, string, string, number][],
 *   summary_tokens?: number, cost?: number, cost_saved?: number, projected_cost?: number, cached_tokens?: number,
 *   cost_decision?: { saves: number, costs: number, calls: number, verdict: string } }} ConversationEvent
 * @typedef {{ covered_messages: number, prefix_messages: number, kept_messages: number[], cleared_messages: number[], provisional: boolean,
 *   summary: string, summary_body: string, ledger: { id: string, from: string }[], summary_tokens: number, covered_tokens: number, model: string, created_at: string }} Checkpoint
 */

/** @param {ConversationEvent} e */
const forwardedOrProjected = (e) => e.projected_tokens_out ?? e.tokens_out;

/** The checkpoint the conversation's newest turns use: the longest prefix, newest first among equals. @param {Checkpoint[]} cps */
function current(cps) {
  return [...cps].sort((a, b) => b.prefix_messages - a.prefix_messages || Date.parse(b.created_at) - Date.parse(a.created_at))[0];
}

/** @param {Checkpoint | undefined} cp */
function summarySection(cp) {
  if (!cp) return el('p', { class: 'empty' }, 'No checkpoint: nothing compacted yet (or forgotten).');
  const body = cp.summary_body
    ? el('pre', { class: 'summary', id: 'summary-text' }, cp.summary_body)
    : el('p', { class: 'empty' }, 'No summary text: this checkpoint clears tool results only, or drops old rounds (window).');
  const ledger = cp.ledger.length
    ? el(
        'div',
        {},
        el('h3', {}, `Identifier ledger (${cp.ledger.length})`),
        el(
          'ul',
          { class: 'ledger', id: 'ledger' },
          // Each identifier with where it was read (the task, a tool call, a tool's output…).
          cp.ledger.map((entry) => el('li', {}, el('code', {}, entry.id), ' ', el('span', { class: 'from' }, entry.from))),
        ),
      )
    : null;
  const cleared = cp.cleared_messages.length
    ? el(
        'div',
        { id: 'stubs' },
        el('h3', {}, `Cleared tool results (${cp.cleared_messages.length})`),
        el('p', { class: 'note' }, 'Shown to the model as a short stub naming the tool and the size; positions after the pinned messages:'),
        el('p', { class: 'stubs' }, cp.cleared_messages.map((i) => `#${i}`).join(' ')),
      )
    : // Older checkpoints may have cleared results (the table below counts them): this one keeps every one.
      el('p', { class: 'note' }, 'This checkpoint clears no tool results; the checkpoints table counts what each one clears.');
  return el(
    'div',
    { class: 'current' },
    el(
      'p',
      { class: 'note' },
      `Covers ${num(cp.covered_messages)} messages (${short(cp.covered_tokens)} tokens) in ${short(cp.summary_tokens)} tokens · ${cp.model} · ${when(cp.created_at)}`,
    ),
    body,
    ledger,
    cleared,
  );
}

// A page of a conversation's requests: the newest first, older ones on demand.
const PAGE = 100;

/** One conversation: its tokens per request, its summary and ledger, its stubs and checkpoints, its whole request history. @param {URLSearchParams} params */
export async function renderConversation(params) {
  const ref = params.get('ref') ?? '';
  const tenant = params.get('tenant');
  const path = `/recap/v1/conversations/${encodeURIComponent(ref)}`;
  const query = `by=hash${tenantQuery(tenant)}`;
  const describe = () =>
    api(`${path}?${query}`).catch((err) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    });
  const [first, firstDescribed] = await Promise.all([api(`${path}/events?${query}&limit=${PAGE}`), describe()]);
  let entry = first.conversation;
  let described = firstDescribed;
  /** Newest first, as loaded: the newest page, refreshed, then older pages. @type {ConversationEvent[]} */
  let loaded = first.events;
  /** @type {string | null} */
  let older = first.next_cursor;
  /** The request whose view map is shown. @type {string | null} */
  let mapped = null;

  const forget = /** @type {HTMLButtonElement} */ (el('button', { type: 'button', class: 'danger', id: 'forget' }, 'Forget this conversation'));
  forget.addEventListener('click', async () => {
    if (!window.confirm('Forget this conversation? Its checkpoints and events are deleted; its next over-budget request compacts again.')) return;
    forget.disabled = true;
    await api(`${path}?${query}`, { method: 'DELETE' });
    location.hash = '#/conversations';
  });
  const title = el('h1', {}, entry ? conversationName(entry) : ref);
  const box = el('div', {});
  /** @type {ReturnType<typeof lineChart> | undefined} */
  let chart;

  const drawChart = () => {
    chart?.destroy();
    chart = undefined;
    const chartBox = /** @type {HTMLElement} */ (box.querySelector('#conversation-chart'));
    const events = [...loaded].reverse();
    const audited = events.some((e) => e.audit !== undefined);
    const x = events.map((_, i) => i + 1);
    /** @param {(e: ConversationEvent) => boolean} marked */
    const markers = (marked) => events.map((e) => (marked(e) ? forwardedOrProjected(e) : null));
    const lines = [
      { label: 'client tokens', values: events.map((e) => e.tokens_in), color: COLORS.sent },
      { label: 'forwarded', values: events.map((e) => e.tokens_out), color: COLORS.forwarded },
      ...(audited ? [{ label: 'projected', values: events.map((e) => e.projected_tokens_out ?? null), color: COLORS.projected, dash: [6, 4] }] : []),
      { label: 'budget', values: events.map((e) => e.budget ?? null), color: COLORS.budget, dash: [2, 4] },
      { label: 'summary', values: markers((e) => e.compaction === 'summary'), color: COLORS.summary, points: true },
      { label: 'clearing', values: markers((e) => e.compaction === 'clearing'), color: COLORS.clearing, points: true },
      { label: 'degraded', values: markers((e) => e.action === 'degraded' || e.audit === 'degraded'), color: COLORS.degraded, points: true },
    ];
    if (events.length === 0) chartBox.append(el('p', { class: 'empty' }, 'No requests recorded.'));
    else chart = lineChart(chartBox, { x, time: false, lines, width: widthOf(chartBox), xLabel: 'request', log: needsLogAxis(lines.slice(0, 1), lines.slice(1)) });
  };

  const fill = () => {
    const events = [...loaded].reverse();
    /** @type {Checkpoint[]} */
    const checkpoints = described?.checkpoints ?? [];
    const audited = events.some((e) => e.audit !== undefined);
    const priced = events.some((e) => e.cost !== undefined || e.projected_cost !== undefined);
    const sumOf = (/** @type {(e: ConversationEvent) => number | undefined} */ f) => events.reduce((n, e) => n + (f(e) ?? 0), 0);
    const withMap = loaded.filter((e) => e.view !== undefined);
    if (mapped === null || !loaded.some((e) => e.event_id === mapped)) mapped = withMap[0]?.event_id ?? null;
    /** Request numbers (1 = the oldest loaded) by event id. */
    const numberOf = new Map(events.map((e, i) => [e.event_id, i + 1]));
    const selected = loaded.find((e) => e.event_id === mapped);

    /** @param {ConversationEvent} e */
    const mapButton = (e) =>
      e.view
        ? el(
            'button',
            {
              type: 'button',
              class: `small${e.event_id === mapped ? ' active' : ''}`,
              'aria-pressed': e.event_id === mapped ? 'true' : 'false',
              onclick: () => {
                mapped = e.event_id;
                fill();
                drawChart();
                box.querySelector('#view-map')?.scrollIntoView({ block: 'nearest' });
              },
            },
            `map #${numberOf.get(e.event_id)}`,
          )
        : '–';

    box.replaceChildren(
      ...(entry
        ? [
            el(
              'div',
              { class: 'cards' },
              session()?.kind === 'admin' ? card('Tenant', entry.client ?? `${entry.tenant.slice(0, 10)}…`) : null,
              card('Route · model', `${entry.route} · ${entry.model}`),
              card('Requests', num(entry.requests), `last ${when(entry.last_seen)}`),
              card('Tokens saved', short(entry.tokens_saved), `of ${short(entry.tokens_in)} sent`),
              audited ? card('Projected savings', short(entry.projected_tokens_saved), 'audit mode') : null,
              card('Recalls', num(entry.recalls ?? 0), 'recap_recall calls answered'),
              priced ? card('Cost', money(sumOf((e) => e.cost)), `saved ${money(sumOf((e) => e.cost_saved))} (requests shown)`) : null,
              priced && audited ? card('Projected cost', money(sumOf((e) => e.projected_cost)), 'audit mode') : null,
            ),
          ]
        : []),
      el('h2', {}, 'Tokens per request'),
      el(
        'p',
        { class: 'note' },
        audited
          ? 'Client tokens, what recap forwarded (the client’s own prompt: audit mode) and what it would have forwarded; markers where it would have compacted.'
          : 'Client tokens and forwarded tokens per request; markers where recap compacted (a new summary) or cleared old tool results.',
      ),
      el('div', { class: 'chart', id: 'conversation-chart' }),
      el('h2', {}, 'Current summary'),
      summarySection(current(checkpoints)),
      el('h2', {}, `Checkpoints (${checkpoints.length})`),
      checkpoints.length
        ? el(
            'div',
            { class: 'table-wrap' },
            table(
              ['Created', 'Covers', 'Prefix', 'Kept verbatim', 'Cleared', 'Summary tokens', 'Covered tokens', 'Made by', ''],
              checkpoints,
              (cp) => [
                when(cp.created_at),
                num(cp.covered_messages),
                num(cp.prefix_messages),
                num(cp.kept_messages.length),
                num(cp.cleared_messages.length),
                num(cp.summary_tokens),
                num(cp.covered_tokens),
                cp.model,
                cp.provisional ? 'provisional' : '',
              ],
              'checkpoints',
            ),
          )
        : el('p', { class: 'empty' }, 'None.'),
      el('h2', { id: 'view-map-heading' }, selected ? `What recap did to request #${numberOf.get(selected.event_id)}` : 'What recap did to a request'),
      selected?.view
        ? viewMapSection(selected.view, selected, audited)
        : el('p', { class: 'empty', id: 'view-map' }, 'recap forwarded every request shown as the client sent it: no message was summarized, cleared or dropped.'),
      el('h2', {}, `Requests (${loaded.length}${older ? ` of ${entry ? num(entry.requests) : 'more'}: the newest first` : ''})`),
      el(
        'div',
        { class: 'table-wrap' },
        table(
          [
            'Time',
            'Action',
            ...(audited ? ['Audit'] : []),
            'Sent',
            audited ? 'Projected' : 'Forwarded',
            'Budget',
            'Cleared',
            'Summarizer',
            'Latency',
            'Status',
            'Recalls',
            ...(priced ? ['Cost'] : []),
            'View map',
          ],
          loaded,
          (e) => [
            when(e.at),
            e.action,
            ...(audited ? [e.audit ?? ''] : []),
            num(e.tokens_in),
            num(forwardedOrProjected(e)),
            e.budget === undefined ? '–' : num(e.budget),
            num(e.cleared),
            e.summarizer_calls ? `${count(e.summarizer_calls, 'call')} (${short(e.summarizer_tokens)} tokens)` : '–',
            `${Math.round(e.latency_ms)} ms${e.own_ms !== undefined ? ` (recap ${Math.round(e.own_ms)} ms)` : ''}`,
            `${e.status}${e.error ? ` ${e.error}` : ''}`,
            num(e.recalls),
            ...(priced ? [e.projected_cost !== undefined ? `${money(e.cost ?? 0)} (projected ${money(e.projected_cost)})` : money(e.cost ?? 0)] : []),
            mapButton(e),
          ],
          'events',
        ),
      ),
      ...(older ? [el('button', { type: 'button', class: 'more', id: 'older', onclick: loadOlder }, 'Older requests')] : []),
    );
  };

  async function loadOlder() {
    if (!older) return;
    const page = await api(`${path}/events?${query}&limit=${PAGE}&cursor=${encodeURIComponent(older)}`);
    loaded = [...loaded, ...page.events];
    older = page.next_cursor;
    fill();
    drawChart();
  }

  const node = el(
    'section',
    { class: 'conversation' },
    el('p', {}, el('a', { href: '#/conversations' }, '← Conversations')),
    el('div', { class: 'title-row' }, title, forget),
    box,
  );
  fill();
  return {
    node,
    mounted: drawChart,
    /** The newest page again: new requests join the loaded ones; the checkpoints as they are now. */
    async refresh() {
      const [page, fresh] = await Promise.all([api(`${path}/events?${query}&limit=${PAGE}`), describe()]);
      const known = new Set(loaded.map((e) => e.event_id));
      const added = /** @type {ConversationEvent[]} */ (page.events).filter((e) => !known.has(e.event_id));
      if (added.length === 0 && JSON.stringify(fresh) === JSON.stringify(described)) return;
      loaded = [...added, ...loaded];
      entry = page.conversation ?? entry;
      described = fresh;
      fill();
      drawChart();
    },
  };
}
