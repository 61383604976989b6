// @ts-check
import { api, session } from './api.js';
import { el, num, short, when } from './dom.js';

/**
 * @typedef {{ id: string | null, conversation: string, tenant?: string, client?: string | null, route: string, model: string,
 *   last_seen: string, requests: number, tokens_saved: number, projected_tokens_saved: number, last_action: string, last_audit: string | null }} Entry
 */

/** How a conversation is named: its id, or for one whose id recap derived, its hash. @param {Entry} c */
export const conversationName = (c) => c.id ?? `derived · ${c.conversation.slice(0, 10)}…`;

/** @param {Entry} c */
export const conversationHref = (c) => `#/conversation?ref=${encodeURIComponent(c.conversation)}${c.tenant ? `&tenant=${encodeURIComponent(c.tenant)}` : ''}`;

/** A tenant as the admin sees it: its client's name, else its keyed hash. @param {Entry} c */
const tenantName = (c) => c.client ?? `${(c.tenant ?? '').slice(0, 10)}…`;

/** The conversation list, newest first, a page at a time. */
export async function renderConversations() {
  const admin = session()?.kind === 'admin';
  const headings = ['Conversation', ...(admin ? ['Tenant'] : []), 'Route', 'Model', 'Last seen', 'Requests', 'Tokens saved', 'Last action'];
  const body = el('tbody', {});
  const more = /** @type {HTMLButtonElement} */ (el('button', { type: 'button', class: 'more', hidden: true }, 'Load more'));
  const empty = el('p', { class: 'empty', hidden: true }, 'No conversations yet: they appear here after their first request on a model that compacts.');
  /** @type {string | null} */
  let cursor = null;

  /** @param {Entry} c */
  const row = (c) =>
    el(
      'tr',
      {},
      el('td', {}, el('a', { href: conversationHref(c), class: 'conversation-link' }, conversationName(c))),
      admin ? el('td', { title: c.tenant ?? '' }, tenantName(c)) : null,
      el('td', {}, c.route),
      el('td', { class: 'model' }, c.model),
      el('td', {}, when(c.last_seen)),
      el('td', { class: 'n' }, num(c.requests)),
      el('td', { class: 'n' }, c.projected_tokens_saved > 0 ? `${short(c.projected_tokens_saved)} projected` : short(c.tokens_saved)),
      el('td', {}, el('span', { class: `action ${c.last_audit ? `audit-${c.last_audit}` : c.last_action}` }, c.last_audit ? `${c.last_audit} (audit)` : c.last_action)),
    );

  const load = async () => {
    const page = await api(`/recap/v1/conversations?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    /** @type {Entry[]} */
    const items = page.conversations;
    body.append(...items.map(row));
    cursor = page.next_cursor;
    more.hidden = !cursor;
    empty.hidden = body.children.length > 0;
  };
  more.addEventListener('click', () => {
    more.disabled = true;
    load().finally(() => {
      more.disabled = false;
    });
  });
  await load();
  const node = el(
    'section',
    { class: 'conversations' },
    el('h1', {}, 'Conversations'),
    el(
      'table',
      { class: 'list' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          headings.map((h) => el('th', {}, h)),
        ),
      ),
      body,
    ),
    empty,
    more,
  );
  return { node };
}
