// Streams SSE events one res.write each, paced, so a proxy test can see chunks arrive over time.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BodyWriter } from './fake-body-writer.js';
import type { ScriptedStall } from './fake-types.js';

export function startEventStream(res: ServerResponse, status: number, headers: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
}

/** Writes the events with `chunkDelayMs()` between them (and the scripted stall); stops as soon as the connection is gone. */
export async function writeEvents(writer: BodyWriter, events: string[], chunkDelayMs: () => number, stall?: ScriptedStall): Promise<void> {
  for (const [i, event] of events.entries()) {
    if (stall && i === (stall.afterEvents ?? 0)) await writer.stall(stall);
    const delay = chunkDelayMs();
    if (i > 0 && delay > 0) await sleep(delay);
    if (!writer.write(event)) return;
  }
  writer.end();
}
