// A scripted Anthropic Messages upstream on plain node:http for tests, the demo and benchmarks:
// the sibling of fake-upstream.ts (OpenAI). It records every request with its own token count,
// answers POST /v1/messages (JSON or typed SSE) with scripted text, tool_use and signed thinking
// blocks, refuses what Anthropic refuses (fake-anthropic-check.ts), reports usage with a simulated
// prompt cache, plays recap's summarizer, and can inject errors, delays, stalls and broken streams.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { BodyWriter } from './fake-body-writer.js';
import { createFakePromptCache } from './fake-anthropic-count.js';
import { MESSAGES_PATH, respondAnthropic } from './fake-anthropic-routes.js';
import type { AnthropicScriptedReply, FakeAnthropic, FakeAnthropicOptions, FakeCount, RecordedRequest } from './fake-anthropic-types.js';
import { pathOf } from './fake-script.js';
import { isSharedPrefixCall } from './fake-summary.js';

export type { AnthropicScriptedReply, FakeAnthropic, FakeAnthropicOptions, FakeCount, RecordedRequest } from './fake-anthropic-types.js';

interface Queued {
  reply: AnthropicScriptedReply;
  model: string | undefined;
}

export async function startFakeAnthropic(initial: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  let options: FakeAnthropicOptions = { ...initial };
  const requests: RecordedRequest[] = [];
  const writers = new Map<RecordedRequest, BodyWriter>();
  const counts = new Map<RecordedRequest, FakeCount>();
  const refused: { request: RecordedRequest; message: string }[] = [];
  let queue: Queued[] = [];
  let fallback: ((r: RecordedRequest) => AnthropicScriptedReply | undefined) | undefined;
  const cache = createFakePromptCache();
  const shutdown = new AbortController();
  let serial = 0;

  const isMessages = (r: RecordedRequest) => r.method === 'POST' && pathOf(r) === MESSAGES_PATH;
  // The summarizer model's calls, and calls on a conversation's own cached prefix (summarizer.shared_prefix).
  const isSummarizer = (r: RecordedRequest) =>
    isMessages(r) && ((options.summarizerModel !== undefined && r.json?.model === options.summarizerModel) || isSharedPrefixCall(r.json));

  function take(record: RecordedRequest, summarizer: boolean): AnthropicScriptedReply {
    const index = queue.findIndex((q) => (q.model !== undefined ? record.json?.model === q.model : !summarizer && isMessages(record)));
    if (index !== -1) return queue.splice(index, 1)[0]!.reply;
    return fallback?.(record) ?? {};
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: '', receivedAt: Date.now(), closedEarly: false };
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return;
    }
    record.body = Buffer.concat(chunks).toString('utf8');
    try {
      record.json = record.body === '' ? undefined : JSON.parse(record.body);
    } catch {
      record.json = undefined;
    }
    const summarizer = isSummarizer(record);
    const reply = take(record, summarizer);
    const writer = new BodyWriter(res, reply.resetAfterBytes);
    res.on('close', () => {
      if (!res.writableFinished && !writer.brokenOnPurpose && !shutdown.signal.aborted) record.closedEarly = true;
    });
    requests.push(record);
    writers.set(record, writer);
    const delay = (isMessages(record) ? (options.latencyMs ?? 0) : 0) + (reply.delayMs ?? 0);
    if (delay > 0) {
      try {
        await sleep(delay, undefined, { signal: shutdown.signal });
      } catch {
        return;
      }
    }
    if (!writer.open) return;
    await respondAnthropic({
      record,
      reply,
      res,
      writer,
      serial: ++serial,
      path: pathOf(record),
      summarizer,
      options,
      count: (request) => {
        const counted = cache.count(request);
        counts.set(record, counted);
        return counted;
      },
      refuse: (message) => refused.push({ request: record, message }),
    });
  }

  const server = createServer((req, res) =>
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `fake anthropic: ${String(err)}` } }));
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(initial.port ?? 0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}/v1`,
    origin,
    requests,
    messagesRequests: () => requests.filter((r) => isMessages(r) && !isSummarizer(r)),
    summarizerRequests: () => requests.filter(isSummarizer),
    countOf: (r) => counts.get(r),
    refusals: () => [...refused],
    enqueue: (reply, opts = {}) => {
      queue.push({ reply, model: opts.model });
    },
    setDefault: (fn) => {
      fallback = fn;
    },
    setOptions: (o) => {
      options = { ...options, ...o };
    },
    sentBytes: (r) => writers.get(r)?.sentBytes() ?? Buffer.alloc(0),
    reset: () => {
      requests.length = 0;
      refused.length = 0;
      writers.clear();
      counts.clear();
      queue = [];
      fallback = undefined;
      cache.reset();
    },
    close: async () => {
      shutdown.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
