// @ts-check
import { login } from './api.js';
import { el } from './dom.js';

/** The login form: a key in, a session out. @param {() => void} done */
export function renderLogin(done) {
  const input = /** @type {HTMLInputElement} */ (el('input', { id: 'key', type: 'password', name: 'key', autocomplete: 'off', required: true, spellcheck: 'false' }));
  const error = el('p', { class: 'error', role: 'alert' });
  const button = /** @type {HTMLButtonElement} */ (el('button', { type: 'submit' }, 'Log in'));
  const form = el(
    'form',
    {
      class: 'login',
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = '';
        button.disabled = true;
        try {
          await login(input.value.trim());
          done();
        } catch (err) {
          error.textContent = err instanceof Error ? err.message : String(err);
        } finally {
          button.disabled = false;
        }
      },
    },
    el('h1', {}, 'Log in to recap'),
    el('label', { for: 'key' }, 'Admin token, client key or API key'),
    input,
    button,
    error,
    el(
      'p',
      { class: 'note' },
      'The admin token (server.admin_token) shows every tenant; a client key (clients) or, without clients, the API key you send through recap shows that caller’s own. The key stays in this tab (session storage) until you log out or close it.',
    ),
  );
  return { node: form, mounted: () => input.focus() };
}
