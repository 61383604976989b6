/**
 * Settles like `work`, or rejects with `onTimeout()` once `ms` have passed, whichever comes first.
 * Node runs due timers before it reads the sockets: after the event loop was busy (a burst of big
 * requests), a reply that arrived in time would lose to the timer. So the timer gives the loop one
 * more look at the sockets (setImmediate runs after it) before it gives up.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(onTimeout())), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
