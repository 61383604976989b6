// @ts-check
// Building the page: every text goes in as a text node (never as markup), so nothing read from the
// store (summaries are client-derived) can become an element, a script or an attribute.

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * An element with attributes (`on…` functions become listeners) and children.
 * @param {string} tag
 * @param {Record<string, string | number | boolean | ((event: Event) => void) | undefined>} [props]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'class') node.className = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(typeof child === 'number' ? String(child) : child);
  return node;
}

const whole = new Intl.NumberFormat('en');
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** @param {number} n */
export const num = (n) => whole.format(n);

/** @param {number} n */
export const short = (n) => compact.format(n);

/** `1 call`, `2 calls`. @param {number} n @param {string} one @param {string} [many] */
export const count = (n, one, many = `${one}s`) => `${whole.format(n)} ${n === 1 ? one : many}`;

/** @param {number} part @param {number} total */
export const percent = (part, total) => (total > 0 ? `${Math.round((100 * part) / total)}%` : '–');

/** @param {string} iso */
export const when = (iso) => new Date(iso).toLocaleString();

const moneyFormat = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 4 });

/** An amount in the currency of the configured prices (recap does not know which currency it is). @param {number} n */
export const money = (n) => moneyFormat.format(n);

/** A latency in ms, or a dash when nothing was measured. @param {number | null | undefined} ms */
export const ms = (ms) => (ms === null || ms === undefined ? '–' : ms >= 10_000 ? `${short(ms / 1000)} s` : `${whole.format(ms)} ms`);

/**
 * A table: a header row, then one row per item.
 * @template T
 * @param {string[]} headings
 * @param {T[]} rows
 * @param {(row: T) => Child[]} cells
 * @param {string} [className]
 */
export function table(headings, rows, cells, className = '') {
  return el(
    'table',
    { class: className },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headings.map((h) => el('th', {}, h)),
      ),
    ),
    el(
      'tbody',
      {},
      // Each cell names its column (data-label): on a narrow screen a row is shown as a card of them.
      rows.map((row) =>
        el(
          'tr',
          {},
          cells(row).map((c, i) => el('td', { 'data-label': headings[i] ?? '' }, c)),
        ),
      ),
    ),
  );
}

/** @param {string} label @param {Child} value @param {Child} [note] */
export const card = (label, value, note) =>
  el('div', { class: 'card' }, el('div', { class: 'label' }, label), el('div', { class: 'value' }, value), note ? el('div', { class: 'note' }, note) : null);
