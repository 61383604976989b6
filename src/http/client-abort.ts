import type { ServerResponse } from 'node:http';

/** An AbortSignal that fires when the client goes away before its response is complete. */
export function clientAbortSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  return controller.signal;
}
