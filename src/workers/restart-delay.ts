// How long the primary waits before replacing a worker (primary.ts). A worker that served and then
// died is replaced at once; while workers keep dying before they listen (a crash during boot, a
// port in use, a Redis that refuses them), each replacement waits twice as long as the last, up to
// a cap, so a broken start costs a fork every few seconds, not a tight loop.

export const RESTART_BASE_MS = 100;
export const RESTART_CAP_MS = 5_000;

/** The delay before the next fork, after `failedStarts` workers in a row exited before they listened. */
export function restartDelay(failedStarts: number): number {
  if (failedStarts <= 0) return 0;
  return Math.min(RESTART_CAP_MS, RESTART_BASE_MS * 2 ** Math.min(failedStarts - 1, 30));
}
