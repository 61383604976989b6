// @ts-check
// Live pages: the view on screen refreshes itself every few seconds while the tab is visible (a
// hidden tab asks nothing; it refreshes at once when shown again), and the header says when it
// last did ("updated 4 s ago").

export const REFRESH_MS = 5_000;

const updated = /** @type {HTMLElement} */ (document.getElementById('updated'));

/** @type {(() => Promise<void>) | null} */
let current = null;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
let last = 0;
let running = false;
/** @type {string | null} */
let failure = null;

function show() {
  if (!current || last === 0) {
    updated.textContent = '';
    return;
  }
  const seconds = Math.max(0, Math.round((Date.now() - last) / 1000));
  updated.textContent = `updated ${seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min`} ago${failure ? ` (refresh failed: ${failure})` : ''}`;
}

async function run() {
  const refresh = current;
  if (!refresh || running || document.hidden) return;
  running = true;
  try {
    await refresh();
    if (refresh === current) {
      last = Date.now();
      failure = null;
    }
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
  } finally {
    running = false;
    show();
  }
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    await run();
    if (current) schedule();
  }, REFRESH_MS);
}

/** Refreshes the view now on screen with `refresh` from now on (null: a view that does not refresh). @param {(() => Promise<void>) | null} refresh */
export function live(refresh) {
  current = refresh;
  last = refresh ? Date.now() : 0;
  failure = null;
  show();
  if (refresh) schedule();
  else clearTimeout(timer);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden && current) run().then(schedule);
});
setInterval(show, 1_000);
