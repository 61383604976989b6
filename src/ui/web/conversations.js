// @ts-check
import { api, session } from './api.js';
import { el, num, short, table, when } from './dom.js';
import { tenantFilter, tenantQueryOf } from './tenant-filter.js';

/**
 * @typedef {{ id: string | null, conversation: string, tenant?: string, client?: string | null, route: string, model: string,
 *   last_seen: string, requests: number, tokens_saved: number, projected_tokens_saved: number, last_action: string, last_audit: string | null,
 *   recalls: number }} Entry
 */

/** How a conversation is named: its id, or for one whose id recap derived, its hash. @param {Entry} c */
export const conversationName = (c) => c.id ?? `derived · ${c.conversation.slice(0, 10)}…`;

/** @param {{ conversation: string, tenant?: string | undefined }} c */
export const conversationHref = (c) => `#/conversation?ref=${encodeURIComponent(c.conversation)}${c.tenant ? `&tenant=${encodeURIComponent(c.tenant)}` : ''}`;

/** A tenant as the admin sees it: its client's name, else its keyed hash. @param {Entry} c */
const tenantName = (c) => c.client ?? `${(c.tenant ?? '').slice(0, 10)}…`;

const ACTIONS = ['none', 'reused', 'compacted', 'degraded', 'cleared'];
const ROUTES = ['chat', 'responses', 'messages'];
/** Sorts of the rows shown (the API lists newest first; the others order what is loaded). @type {Record<string, [string, (a: Entry, b: Entry) => number]>} */
const SORTS = {
  newest: ['Newest first', (a, b) => Date.parse(b.last_seen) - Date.parse(a.last_seen)],
  requests: ['Most requests', (a, b) => b.requests - a.requests],
  saved: ['Most tokens saved', (a, b) => Math.max(b.tokens_saved, b.projected_tokens_saved) - Math.max(a.tokens_saved, a.projected_tokens_saved)],
  recalls: ['Most recalls', (a, b) => b.recalls - a.recalls],
};

/** @param {string} id @param {string} label @param {string[]} values @param {string} current */
function picker(id, label, values, current) {
  return /** @type {HTMLSelectElement} */ (
    el(
      'select',
      { id, name: id, 'aria-label': label },
      el('option', { value: '' }, `Any ${label.toLowerCase()}`),
      values.map((v) => el('option', { value: v, selected: v === current }, v)),
    )
  );
}

/** The conversation list: searched, filtered and sorted, newest first, a page at a time. @param {URLSearchParams} params */
export async function renderConversations(params) {
  const admin = session()?.kind === 'admin';
  const tenant = tenantQueryOf(params);
  const search = /** @type {HTMLInputElement} */ (
    el('input', { id: 'search', name: 'q', type: 'search', placeholder: 'conversation id', 'aria-label': 'Search', value: params.get('q') ?? '' })
  );
  const model = /** @type {HTMLInputElement} */ (
    el('input', { id: 'filter-model', name: 'model', type: 'search', placeholder: 'model', 'aria-label': 'Model', value: params.get('model') ?? '', list: 'models' })
  );
  const route = picker('filter-route', 'Route', ROUTES, params.get('route') ?? '');
  const action = picker('filter-action', 'Action', ACTIONS, params.get('action') ?? '');
  const sort = /** @type {HTMLSelectElement} */ (
    el(
      'select',
      { id: 'sort', 'aria-label': 'Sort' },
      Object.entries(SORTS).map(([k, [label]]) => el('option', { value: k, selected: k === (params.get('sort') ?? 'newest') }, label)),
    )
  );
  const models = el('datalist', { id: 'models' });
  const rows = el('div', { class: 'table-wrap' });
  const more = /** @type {HTMLButtonElement} */ (el('button', { type: 'button', class: 'more', hidden: true }, 'Load more'));
  const status = el('p', { class: 'empty', hidden: true });
  /** @type {Entry[]} */
  let entries = [];
  /** @type {string | null} */
  let cursor = null;

  const query = () => {
    const q = new URLSearchParams();
    for (const [k, v] of /** @type {[string, string][]} */ ([
      ['q', search.value.trim()],
      ['model', model.value.trim()],
      ['route', route.value],
      ['action', action.value],
    ]))
      if (v) q.set(k, v);
    return q;
  };
  const filtered = () => [...query().keys()].length > 0;

  const draw = () => {
    const sorted = [...entries].sort((SORTS[sort.value] ?? SORTS.newest)?.[1]);
    const headings = ['Conversation', ...(admin ? ['Tenant'] : []), 'Route', 'Model', 'Last seen', 'Requests', 'Tokens saved', 'Recalls', 'Last action'];
    rows.replaceChildren(
      table(
        headings,
        sorted,
        (c) => [
          el('a', { href: conversationHref(c), class: 'conversation-link' }, conversationName(c)),
          ...(admin ? [el('span', { title: c.tenant ?? '' }, tenantName(c))] : []),
          c.route,
          c.model,
          when(c.last_seen),
          num(c.requests),
          c.projected_tokens_saved > 0 ? `${short(c.projected_tokens_saved)} projected` : short(c.tokens_saved),
          num(c.recalls ?? 0),
          el('span', { class: `action ${c.last_audit ? `audit-${c.last_audit}` : c.last_action}` }, c.last_audit ? `${c.last_audit} (audit)` : c.last_action),
        ],
        'list',
      ),
    );
    models.replaceChildren(...[...new Set(entries.map((e) => e.model))].map((m) => el('option', { value: m })));
    more.hidden = !cursor;
    status.hidden = entries.length > 0;
    status.textContent = filtered()
      ? `No conversation matches${cursor ? ' among those read so far: load more to read further back' : ''}.`
      : 'No conversations yet: they appear here after their first request on a model that compacts.';
    if (cursor && entries.length === 0) status.hidden = false;
  };

  /** @param {string | null} after @param {number} [limit] */
  const page = async (after, limit = 50) => {
    const q = query();
    q.set('limit', String(limit));
    if (after) q.set('cursor', after);
    return api(`/recap/v1/conversations?${q}${tenant}`);
  };

  /** Reads the first page again with the filters as they are now, and keeps them in the location. */
  const reload = async () => {
    const first = await page(null);
    entries = first.conversations;
    cursor = first.next_cursor;
    const q = query();
    if (sort.value !== 'newest') q.set('sort', sort.value);
    history.replaceState(null, '', `#/conversations?${q}${tenant}`);
    draw();
  };

  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const next = await page(cursor);
      entries = [...entries, ...next.conversations];
      cursor = next.next_cursor;
      draw();
    } finally {
      more.disabled = false;
    }
  });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let typing;
  for (const input of [search, model]) {
    input.addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(() => reload(), 300);
    });
  }
  for (const select of [route, action]) select.addEventListener('change', () => reload());
  sort.addEventListener('change', () => reload());

  const first = await page(null);
  entries = first.conversations;
  cursor = first.next_cursor;
  draw();

  const node = el(
    'section',
    { class: 'conversations' },
    el('h1', {}, 'Conversations'),
    el('form', { class: 'filters', role: 'search', onsubmit: (event) => (event.preventDefault(), reload()) }, search, model, models, route, action, sort),
    admin ? tenantFilter('#/conversations', params) : null,
    rows,
    status,
    more,
  );
  return {
    node,
    /** The rows shown, read again (as many as are loaded, up to a page of 200): new conversations and requests appear. */
    async refresh() {
      const fresh = await page(null, Math.min(200, Math.max(50, entries.length)));
      entries = fresh.conversations;
      cursor = fresh.next_cursor;
      draw();
    },
  };
}
