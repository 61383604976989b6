// @ts-check
import { ApiError, api, session, tenantQuery } from './api.js';
import { COLORS, lineChart, widthOf } from './charts.js';
import { conversationName } from './conversations.js';
import { card, count, el, num, short, table, when } from './dom.js';

/**
 * @typedef {{ event_id: string, at: string, action: string, audit?: string, compaction?: 'summary' | 'clearing', tokens_in: number, tokens_out: number,
 *   projected_tokens_out?: number, budget?: number, cleared: number, summarizer_calls: number, summarizer_tokens: number, recalls: number,
 *   latency_ms: number, status: number, outcome?: string, error?: string }} ConversationEvent
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
    : el('p', { class: 'note' }, 'No tool results cleared.');
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

/** One conversation: its tokens per request, its summary and ledger, its stubs and checkpoints. @param {URLSearchParams} params */
export async function renderConversation(params) {
  const ref = params.get('ref') ?? '';
  const tenant = params.get('tenant');
  const path = `/recap/v1/conversations/${encodeURIComponent(ref)}`;
  const query = `by=hash${tenantQuery(tenant)}`;
  const [page, described] = await Promise.all([
    api(`${path}/events?${query}&limit=500`),
    api(`${path}?${query}`).catch((err) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }),
  ]);
  const entry = page.conversation;
  /** @type {ConversationEvent[]} */
  const events = [...page.events].reverse();
  /** @type {Checkpoint[]} */
  const checkpoints = described?.checkpoints ?? [];
  const audited = events.some((e) => e.audit !== undefined);

  const forget = /** @type {HTMLButtonElement} */ (el('button', { type: 'button', class: 'danger', id: 'forget' }, 'Forget this conversation'));
  forget.addEventListener('click', async () => {
    if (!window.confirm('Forget this conversation? Its checkpoints and events are deleted; its next over-budget request compacts again.')) return;
    forget.disabled = true;
    await api(`${path}?${query}`, { method: 'DELETE' });
    location.hash = '#/conversations';
  });

  const chartBox = el('div', { class: 'chart', id: 'conversation-chart' });
  const node = el(
    'section',
    { class: 'conversation' },
    el('p', {}, el('a', { href: '#/conversations' }, '← Conversations')),
    el('div', { class: 'title-row' }, el('h1', {}, entry ? conversationName(entry) : ref), forget),
    entry
      ? el(
          'div',
          { class: 'cards' },
          session()?.kind === 'admin' ? card('Tenant', entry.client ?? `${entry.tenant.slice(0, 10)}…`) : null,
          card('Route · model', `${entry.route} · ${entry.model}`),
          card('Requests', num(entry.requests), `last ${when(entry.last_seen)}`),
          card('Tokens saved', short(entry.tokens_saved), `of ${short(entry.tokens_in)} sent`),
          audited ? card('Projected savings', short(entry.projected_tokens_saved), 'audit mode') : null,
        )
      : null,
    el('h2', {}, 'Tokens per request'),
    el(
      'p',
      { class: 'note' },
      audited
        ? 'Client tokens, what recap forwarded (the client’s own prompt: audit mode) and what it would have forwarded; markers where it would have compacted.'
        : 'Client tokens and forwarded tokens per request; markers where recap compacted (a new summary) or cleared old tool results.',
    ),
    chartBox,
    el('h2', {}, 'Current summary'),
    summarySection(current(checkpoints)),
    el('h2', {}, `Checkpoints (${checkpoints.length})`),
    checkpoints.length
      ? table(
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
        )
      : el('p', { class: 'empty' }, 'None.'),
    el('h2', {}, events.length > 50 ? 'Requests (the newest 50)' : 'Requests'),
    table(
      ['Time', 'Action', ...(audited ? ['Audit'] : []), 'Sent', audited ? 'Projected' : 'Forwarded', 'Budget', 'Cleared', 'Summarizer', 'Latency', 'Status'],
      [...events].reverse().slice(0, 50),
      (e) => [
        when(e.at),
        e.action,
        ...(audited ? [e.audit ?? ''] : []),
        num(e.tokens_in),
        num(forwardedOrProjected(e)),
        e.budget === undefined ? '–' : num(e.budget),
        num(e.cleared),
        e.summarizer_calls ? `${count(e.summarizer_calls, 'call')} (${short(e.summarizer_tokens)} tokens)` : '–',
        `${Math.round(e.latency_ms)} ms`,
        `${e.status}${e.error ? ` ${e.error}` : ''}`,
      ],
      'events',
    ),
  );

  const mounted = () => {
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
    else lineChart(chartBox, { x, time: false, lines, width: widthOf(node), xLabel: 'request' });
  };
  return { node, mounted };
}
