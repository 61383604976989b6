import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IAnyValue, IKeyValue } from '@opentelemetry/otlp-transformer/build/src/common/internal-types.js';
import type { IExportTraceServiceRequest, ISpan } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../src/dev/fake-upstream.js';
import { overBudgetHistory } from './helpers/conversation.js';
import { SUMMARIZER, smallModel, testConfig } from './helpers/harness.js';
import { startRecapProcess } from './helpers/recap-process.js';

// OpenTelemetry traces as a collector receives them: a real OTLP/HTTP receiver on port 0 takes
// what a recap process exports (JSON, decoded with the OTLP types; protobuf, checked as bytes)
// and the test reads the spans, their links and attributes, and what must never be there.

const MESSAGE_CANARY = 'CANARY-message-text-7731';
const KEY_CANARY = 'sk-CANARY-client-key-4411';
// A caller's W3C trace context: recap's request span continues that trace.
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

interface Received {
  contentType: string;
  raw: Buffer;
}

async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') received.push({ contentType: String(req.headers['content-type']), raw: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/json') }).end(req.headers['content-type']?.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

function value(v: IAnyValue): unknown {
  return v.stringValue ?? (v.intValue !== undefined && v.intValue !== null ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue;
}
const attrs = (kv: IKeyValue[] | undefined) => Object.fromEntries((kv ?? []).map((a) => [a.key, value(a.value)]));

function decode(received: Received[]): { spans: ISpan[]; resources: Record<string, unknown>[] } {
  const requests = received.map((r) => JSON.parse(r.raw.toString('utf8')) as IExportTraceServiceRequest);
  const resourceSpans = requests.flatMap((r) => r.resourceSpans ?? []);
  return {
    spans: resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans ?? [])),
    resources: resourceSpans.map((rs) => attrs(rs.resource?.attributes)),
  };
}

const otelEnv = (receiver: string, extra: Record<string, string> = {}) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_SERVICE_NAME: 'recap-under-test',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  ...extra,
});

let fake: FakeUpstream;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  fake = await startFakeUpstream({ summarizerModel: SUMMARIZER });
  receiver = await startReceiver();
});
afterAll(async () => {
  await fake?.close();
  await new Promise((resolve) => receiver?.server.close(resolve));
});

/** Runs a compacting chat request and a passthrough request through a traced recap, then stops it (which flushes the spans). */
async function tracedRun(env: Record<string, string>): Promise<{ action: string | null }> {
  const config = testConfig(fake, { models: [smallModel()], extra: { background: { enabled: false } } });
  const recap = await startRecapProcess(config, env);
  try {
    const client = new OpenAI({
      baseURL: `${recap.url}/v1`,
      apiKey: KEY_CANARY,
      maxRetries: 0,
      defaultHeaders: { 'x-conversation-id': 'traced', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    const { response } = await client.chat.completions.create({ model: 'gpt-test-small', messages: overBudgetHistory(` ${MESSAGE_CANARY}`) }).withResponse();
    await fetch(`${recap.url}/v1/models?secret=${MESSAGE_CANARY}`, { headers: { authorization: `Bearer ${KEY_CANARY}` } });
    return { action: response.headers.get('x-recap-action') };
  } finally {
    expect(await recap.stop('SIGTERM')).toBe(0);
  }
}

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  it('exports one span per request with child spans for the store, the summarizer and the upstream', async () => {
    receiver.received.length = 0;
    const { action } = await tracedRun(otelEnv(receiver.url));
    expect(action).toBe('compacted');
    expect(receiver.received.every((r) => r.contentType.startsWith('application/json'))).toBe(true);
    const { spans, resources } = decode(receiver.received);
    expect(resources[0]).toMatchObject({ 'service.name': 'recap-under-test', 'service.version': expect.any(String) });

    const named = (name: string) => spans.filter((s) => s.name === name);
    const [chat] = named('POST /v1/chat/completions');
    expect(chat).toBeDefined();
    // The caller's trace continues: same trace id, the caller's span as parent.
    expect([chat!.traceId, chat!.parentSpanId]).toEqual([TRACE_ID, PARENT_ID]);
    expect(chat!.kind).toBe(2); // SERVER
    expect(attrs(chat!.attributes)).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.request.model': 'gpt-test-small',
      'recap.model': 'gpt-test-small',
      'recap.action': 'compacted',
    });
    const chatAttrs = attrs(chat!.attributes) as Record<string, number>;
    expect(chatAttrs['recap.tokens_in']).toBeGreaterThan(chatAttrs['recap.tokens_out']!);

    const children = (parent: ISpan) => spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);
    const under = children(chat!).map((s) => s.name);
    expect(under).toEqual(expect.arrayContaining(['store load', 'store lock', 'summarizer', 'upstream POST']));
    expect(named('store load')[0]!.kind).toBe(3); // CLIENT
    expect(attrs(named('store load')[0]!.attributes)).toMatchObject({ 'db.operation.name': 'load', 'recap.store': 'memory' });

    const [summarizer] = named('summarizer');
    expect(attrs(summarizer!.attributes)).toMatchObject({ 'gen_ai.request.model': SUMMARIZER, 'recap.upstream': 'fake', 'recap.summarizer.outcome': 'ok' });
    // The summarizer's own request to its upstream is its child; the forwarded chat request is the request's.
    expect(children(summarizer!).map((s) => s.name)).toEqual(['upstream POST']);
    const forwarded = children(chat!).find((s) => s.name === 'upstream POST')!;
    expect(attrs(forwarded.attributes)).toMatchObject({ 'recap.upstream': 'fake', 'url.path': '/chat/completions', 'http.response.status_code': 200 });

    const [models] = named('GET /v1/*');
    expect(attrs(models!.attributes)).toMatchObject({ 'http.route': '/v1/*', 'url.path': '/v1/models', 'http.response.status_code': 200 });
    expect(children(models!).map((s) => s.name)).toEqual(['upstream GET']);

    // Never message text, the client's credential, or its headers.
    const everything = Buffer.concat(receiver.received.map((r) => r.raw)).toString('utf8');
    expect(everything).not.toContain(MESSAGE_CANARY);
    expect(everything).not.toContain(KEY_CANARY);
    expect(everything).not.toContain('CANARY');
    expect(everything.toLowerCase()).not.toContain('authorization');
  });

  it('speaks OTLP protobuf by default', async () => {
    receiver.received.length = 0;
    const env = otelEnv(receiver.url);
    delete (env as Record<string, string | undefined>).OTEL_EXPORTER_OTLP_PROTOCOL;
    await tracedRun(env);
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(receiver.received.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
    // Strings travel as plain UTF-8 inside protobuf: the span names are there, the canaries are not.
    const everything = Buffer.concat(receiver.received.map((r) => r.raw));
    for (const name of ['POST /v1/chat/completions', 'store load', 'summarizer', 'upstream POST']) expect(everything.includes(name)).toBe(true);
    expect(everything.includes('CANARY')).toBe(false);
  });

  it('exports nothing with OTEL_SDK_DISABLED=true, endpoint or not', async () => {
    receiver.received.length = 0;
    await tracedRun(otelEnv(receiver.url, { OTEL_SDK_DISABLED: 'true' }));
    expect(receiver.received).toEqual([]);
  });
});
