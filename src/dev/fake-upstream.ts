// A scripted OpenAI-compatible upstream on plain node:http for tests, the demo and benchmarks.
// It records every request, answers chat completions and responses (JSON or SSE) deterministically, plays
// recap's summarizer with an extractive summary, and can inject errors, delays, stalls and broken
// streams.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { BodyWriter } from './fake-body-writer.js';
import { RESPONSES_PATH } from './fake-responses-route.js';
import { CHAT_PATH, respond } from './fake-routes.js';
import { pathOf, ReplyScript } from './fake-script.js';
import { isSharedPrefixCall } from './fake-summary.js';
import type { FakeUpstream, FakeUpstreamOptions, RecordedRequest } from './fake-types.js';

export type { FakeUpstream, FakeUpstreamOptions, RecordedRequest, ScriptedReply } from './fake-types.js';

export async function startFakeUpstream(initial: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  let options: FakeUpstreamOptions = { ...initial };
  const requests: RecordedRequest[] = [];
  const writers = new Map<RecordedRequest, BodyWriter>();
  const closeListeners: ((r: RecordedRequest) => void)[] = [];
  const script = new ReplyScript();
  const shutdown = new AbortController();
  let serial = 0;

  const isChatCall = (r: RecordedRequest): boolean => r.method === 'POST' && pathOf(r) === CHAT_PATH;
  const isResponsesCall = (r: RecordedRequest): boolean => r.method === 'POST' && pathOf(r) === RESPONSES_PATH;
  // The summarizer model's chat calls, and calls on a conversation's own cached prefix (summarizer.shared_prefix).
  const isSummarizerCall = (r: RecordedRequest): boolean =>
    (isChatCall(r) && options.summarizerModel !== undefined && r.json?.model === options.summarizerModel) || ((isChatCall(r) || isResponsesCall(r)) && isSharedPrefixCall(r.json));

  function forgetOldest(): void {
    const overflow = requests.length - (options.maxRecorded ?? Infinity);
    if (overflow <= 0) return;
    for (const old of requests.splice(0, overflow)) writers.delete(old);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: '',
      receivedAt: Date.now(),
      remotePort: req.socket.remotePort,
      closedEarly: false,
    };
    let writer: BodyWriter | undefined;
    // Writes to a connection the client dropped fail; that is expected here, not a crash.
    res.on('error', () => {});
    res.on('close', () => {
      // Only the client leaving counts: not a finished response, a scripted break or close().
      if (res.writableFinished || writer?.brokenOnPurpose || shutdown.signal.aborted) return;
      record.closedEarly = true;
      for (const listener of closeListeners) listener(record);
    });

    try {
      record.body = await readBody(req);
    } catch {
      return; // the client went away while sending the body
    }
    record.json = parseJson(record.body);

    const chat = isChatCall(record);
    const responses = isResponsesCall(record);
    const summarizer = isSummarizerCall(record);
    const reply = script.take(record, summarizer) ?? {};
    writer = new BodyWriter(res, reply.resetAfterBytes);
    requests.push(record);
    writers.set(record, writer);
    forgetOldest();

    const routeLatency = summarizer ? (options.summarizerLatencyMs ?? options.latencyMs) : chat || responses ? options.latencyMs : 0;
    const delay = (routeLatency ?? 0) + (reply.delayMs ?? 0);
    if (delay > 0) {
      try {
        await sleep(delay, undefined, { signal: shutdown.signal });
      } catch {
        return; // the fake is closing
      }
    }
    if (reply.heldUntil) {
      const closing = new Promise((resolve) => shutdown.signal.addEventListener('abort', resolve, { once: true }));
      await Promise.race([reply.heldUntil, closing]);
      if (shutdown.signal.aborted) return; // the fake is closing
    }
    if (!writer.open) return;
    await respond({ record, reply, res, writer, serial: ++serial, isChatCall: chat, isResponsesCall: responses, isSummarizerCall: summarizer, options: () => options });
  }

  // A request the fake cannot handle gets a 500 as a real upstream's would, instead of ending
  // the process (and the test run it serves) with an unhandled rejection.
  const server = createServer((req, res) =>
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake upstream: ${String(err)}`, type: 'server_error', code: 'fake_upstream_error' } }));
    }),
  );
  const host = initial.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(initial.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;

  return {
    url: `${origin}/v1`,
    origin,
    requests,
    chatRequests: () => requests.filter((r) => isChatCall(r) && !isSummarizerCall(r)),
    summarizerRequests: () => requests.filter(isSummarizerCall),
    responsesRequests: () => requests.filter((r) => isResponsesCall(r) && !isSummarizerCall(r)),
    enqueue: (reply, opts) => script.enqueue(reply, opts),
    setDefault: (fn) => script.setDefault(fn),
    setOptions: (o) => {
      options = { ...options, ...o };
    },
    onClose: (cb) => {
      closeListeners.push(cb);
    },
    sentBytes: (r) => writers.get(r)?.sentBytes() ?? Buffer.alloc(0),
    reset: () => {
      requests.length = 0;
      writers.clear();
      closeListeners.length = 0;
      script.reset();
    },
    close: async () => {
      shutdown.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
