import type { ServerResponse } from 'node:http';

export interface RequestAbort {
  /** Fires when the client goes away before its response is complete, or when abort() is called. */
  signal: AbortSignal;
  /** Whether the client went away (as opposed to recap aborting). */
  clientGone(): boolean;
  abort(): void;
}

/** One controller per request: the client leaving and recap giving up both cancel the upstream call. */
export function requestAbort(res: ServerResponse): RequestAbort {
  const controller = new AbortController();
  let gone = false;
  res.once('close', () => {
    if (res.writableFinished) return;
    gone = true;
    controller.abort(new Error('client closed the connection'));
  });
  return {
    signal: controller.signal,
    clientGone: () => gone,
    abort: () => controller.abort(new Error('request failed in recap')),
  };
}
