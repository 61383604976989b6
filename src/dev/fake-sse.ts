// Streams SSE events one res.write each, paced, so a proxy test can see chunks arrive over time.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BodyWriter } from './fake-body-writer.js';

export function startEventStream(res: ServerResponse, status: number, headers: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
}

/** Writes the events with `chunkDelayMs()` between them; stops as soon as the connection is gone. */
export async function writeEvents(writer: BodyWriter, events: string[], chunkDelayMs: () => number): Promise<void> {
  for (const [i, event] of events.entries()) {
    const delay = chunkDelayMs();
    if (i > 0 && delay > 0) await sleep(delay);
    if (!writer.write(event)) return;
  }
  writer.end();
}
