// One request the fake is answering, and how a whole (non-streamed) body goes out.
import type { ServerResponse } from 'node:http';
import type { BodyWriter } from './fake-body-writer.js';
import type { FakeUpstreamOptions, RecordedRequest, ScriptedReply } from './fake-types.js';

export interface Exchange {
  record: RecordedRequest;
  reply: ScriptedReply;
  res: ServerResponse;
  writer: BodyWriter;
  /** Unique per request, used in response ids. */
  serial: number;
  isChatCall: boolean;
  isResponsesCall: boolean;
  isSummarizerCall: boolean;
  options: () => FakeUpstreamOptions;
}

export async function sendBody(x: Exchange, status: number, headers: Record<string, string>, body: unknown): Promise<void> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  x.res.writeHead(status, {
    'content-type': contentTypeOf(body),
    'content-length': String(bytes.length),
    ...headers,
  });
  if (x.reply.stall) await x.writer.stall(x.reply.stall);
  x.writer.end(bytes);
}

function contentTypeOf(body: unknown): string {
  if (Buffer.isBuffer(body)) return 'application/octet-stream';
  return typeof body === 'string' && !parsesAsJson(body) ? 'text/plain; charset=utf-8' : 'application/json';
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
