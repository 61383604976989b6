// @ts-check
// The dashboard's entry: one page, a view per location hash (#/overview, #/conversations,
// #/conversation?ref=…), each drawn from recap's API with the key of this tab's session.
import { ApiError, credentialText, logout, session } from './api.js';
import { renderConversation } from './conversation.js';
import { renderConversations } from './conversations.js';
import { el } from './dom.js';
import { live } from './live.js';
import { renderLogin } from './login.js';
import { renderOverview } from './overview.js';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const who = /** @type {HTMLElement} */ (document.getElementById('who'));
const logoutButton = /** @type {HTMLButtonElement} */ (document.getElementById('logout'));

/** @typedef {{ node: HTMLElement, mounted?: () => void, refresh?: () => Promise<void> }} View */

/** @type {Record<string, (params: URLSearchParams) => Promise<View>>} */
const VIEWS = { '/overview': renderOverview, '/conversations': renderConversations, '/conversation': renderConversation };

// Each navigation draws its view; one that finishes after a newer navigation is dropped.
let drawing = 0;

/** @param {View} view */
function show(view) {
  main.replaceChildren(view.node);
  view.mounted?.();
  live(view.refresh ?? null);
}

function header() {
  const s = session();
  nav.hidden = !s;
  logoutButton.hidden = !s;
  who.textContent = !s ? '' : s.who.admin ? 'admin: every tenant' : s.who.client ? `client ${s.who.client}` : `API key · tenant ${(s.who.tenant ?? '').slice(0, 10)}…`;
  who.title = s ? credentialText(s) : '';
  const current = location.hash.slice(2).split('?')[0] || 'overview';
  for (const link of nav.querySelectorAll('a')) link.classList.toggle('active', link.dataset.view === current);
}

async function route() {
  const mine = ++drawing;
  header();
  if (!session()) {
    show(renderLogin(() => route()));
    return;
  }
  live(null);
  const [path = '', query = ''] = location.hash.slice(1).split('?');
  const render = VIEWS[path] ?? renderOverview;
  main.replaceChildren(el('p', { class: 'loading' }, 'Loading…'));
  try {
    const view = await render(new URLSearchParams(query));
    if (mine === drawing) show(view);
  } catch (err) {
    if (mine !== drawing) return;
    if (err instanceof ApiError && err.status === 401) {
      logout();
      route();
      return;
    }
    const message =
      err instanceof ApiError && err.status === 404 ? 'Not found: it may have been forgotten, or belong to another tenant.' : err instanceof Error ? err.message : String(err);
    main.replaceChildren(el('p', { class: 'error', role: 'alert' }, message));
  }
}

logoutButton.addEventListener('click', () => {
  logout();
  location.hash = '#/overview';
  route();
});
window.addEventListener('hashchange', () => route());
route();
