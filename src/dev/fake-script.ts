// Which scripted reply answers a request: the first queued one that matches, else the default script.
import type { EnqueueOptions, RecordedRequest, ScriptedReply } from './fake-types.js';

interface QueuedReply {
  reply: ScriptedReply;
  filter: EnqueueOptions;
}

export type DefaultScript = (req: RecordedRequest) => ScriptedReply | undefined;

export function pathOf(req: RecordedRequest): string {
  const query = req.path.indexOf('?');
  return query === -1 ? req.path : req.path.slice(0, query);
}

export class ReplyScript {
  private queue: QueuedReply[] = [];
  private fallback: DefaultScript | undefined;

  enqueue(reply: ScriptedReply, filter: EnqueueOptions = {}): void {
    this.queue.push({ reply, filter });
  }

  setDefault(fn: DefaultScript): void {
    this.fallback = fn;
  }

  /** Takes the reply for this request out of the queue; undefined means the route's built-in behaviour. */
  take(req: RecordedRequest, isSummarizerCall: boolean): ScriptedReply | undefined {
    const index = this.queue.findIndex((q) => matches(q.filter, req, isSummarizerCall));
    if (index !== -1) return this.queue.splice(index, 1)[0]?.reply;
    return this.fallback?.(req);
  }

  reset(): void {
    this.queue = [];
    this.fallback = undefined;
  }
}

function matches(filter: EnqueueOptions, req: RecordedRequest, isSummarizerCall: boolean): boolean {
  if (filter.path !== undefined && filter.path !== pathOf(req)) return false;
  if (filter.model !== undefined) return req.json?.model === filter.model;
  // Unfiltered replies are meant for the application's own calls, never for recap's summarizer.
  return !isSummarizerCall;
}
