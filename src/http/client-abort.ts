import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

/**
 * An abort as undici takes it for a request's `signal`: an EventEmitter with AbortSignal's two
 * fields. undici listens to one with `once('abort')`; an AbortSignal's listener (an EventTarget's)
 * cost a forwarded request ~50 µs of the time before it was sent (issue 39).
 */
export class UpstreamAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

export interface RequestAbort {
  /** For undici's requests: fires when the client goes away before its response is complete, or when abort() is called. */
  upstream: UpstreamAbort;
  /** The same abort as an AbortSignal, for what needs one (the summarizer's call, a wait on a lock); made when first read. */
  readonly signal: AbortSignal;
  /** Whether the client went away (as opposed to recap aborting). */
  clientGone(): boolean;
  abort(): void;
}

/** One abort per request: the client leaving and recap giving up both cancel the upstream call. */
export function requestAbort(res: ServerResponse): RequestAbort {
  const upstream = new UpstreamAbort();
  let controller: AbortController | undefined;
  let gone = false;
  const abort = (reason: Error) => {
    upstream.abort(reason);
    controller?.abort(reason);
  };
  res.once('close', () => {
    if (res.writableFinished) return;
    gone = true;
    abort(new Error('client closed the connection'));
  });
  return {
    upstream,
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (upstream.aborted) controller.abort(upstream.reason);
      }
      return controller.signal;
    },
    clientGone: () => gone,
    abort: () => abort(new Error('request failed in recap')),
  };
}
