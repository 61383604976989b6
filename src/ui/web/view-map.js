// @ts-check
// A request's view map: each of its messages (by index and role, with its tokens) and what recap
// made of it in the view it forwarded (in audit mode: would have forwarded). No text: the event
// holds none.
import { el, num, percent, table } from './dom.js';

/** @typedef {[index: number, count: number, role: string, state: string, tokens: number]} Row */

const STATES = {
  pinned: 'pinned (leading instructions, always first)',
  kept: 'kept verbatim',
  cleared: 'cleared (a short stub instead of the result)',
  summarized: 'summarized',
  dropped: 'dropped (no summary: oldest rounds left out)',
  summary: 'recap’s earlier summary, sent back (replaced)',
  recalled: 'recalled (left out, then given back to the model by recap_recall)',
};

/**
 * @param {Row[]} rows
 * @param {{ tokens_in: number, summary_tokens?: number, recalls: number, action: string, audit?: string }} e
 * @param {boolean} audited
 */
export function viewMapSection(rows, e, audited) {
  const total = rows.reduce((n, r) => n + r[4], 0) || 1;
  const messages = rows.reduce((n, r) => n + r[1], 0);
  // One block per row, as wide as its share of the request's tokens (at least a sliver).
  const bar = el(
    'div',
    { class: 'view-bar', role: 'img', 'aria-label': 'The request’s messages by tokens, coloured by what recap did with them' },
    rows.map((r) =>
      el('span', { class: `block ${r[3]}`, title: `${r[1] === 1 ? `#${r[0]}` : `#${r[0]}–#${r[0] + r[1] - 1}`} ${r[2]} · ${num(r[4])} tokens · ${r[3]}`, 'data-grow': r[4] }),
    ),
  );
  for (const block of /** @type {NodeListOf<HTMLElement>} */ (bar.querySelectorAll('.block'))) block.style.flexGrow = String(Math.max(Number(block.dataset.grow), total / 400));
  const counts = /** @type {Record<string, number>} */ ({});
  for (const r of rows) counts[r[3]] = (counts[r[3]] ?? 0) + r[1];
  return el(
    'div',
    { id: 'view-map' },
    el(
      'p',
      { class: 'note' },
      `${audited ? `Audit mode (${e.audit ?? 'none'}): what recap would have forwarded. ` : ''}${num(messages)} messages, ${num(total)} tokens: `,
      Object.entries(counts)
        .map(([state, n]) => `${num(n)} ${state}`)
        .join(' · '),
      e.summary_tokens ? ` · a summary of ${num(e.summary_tokens)} tokens in their place` : '',
      e.recalls ? ` · ${num(e.recalls)} recalled by the model (recap_recall)` : '',
      '.',
    ),
    bar,
    el(
      'ul',
      { class: 'legend' },
      Object.keys(counts).map((state) => el('li', {}, el('span', { class: `swatch ${state}` }), STATES[/** @type {keyof typeof STATES} */ (state)] ?? state)),
    ),
    el(
      'div',
      { class: 'table-wrap' },
      table(
        ['Messages', 'Role', 'Tokens', 'Share', 'State'],
        rows,
        (r) => [
          r[1] === 1 ? `#${r[0]}` : `#${r[0]}–#${r[0] + r[1] - 1} (${num(r[1])})`,
          r[2] === '*' ? 'several' : r[2],
          num(r[4]),
          percent(r[4], total),
          el('span', { class: `state ${r[3]}` }, r[3]),
        ],
        'view-map',
      ),
    ),
  );
}
