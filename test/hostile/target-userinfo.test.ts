import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTracer } from '../../src/tracing/spans.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';

// An absolute-form request target may carry userinfo (`GET http://USER:pw@host/v1/models`): a
// credential the client put in a URL. recap never routes by it (hostile/security), and it must
// not be written anywhere either: not into a span's `url.path`, not into a log line, not upstream.

const USERINFO = 'CANARYUSER:CANARYPW';
let h: Harness;
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(async () => {
  h = await startHarness();
  useTracer(provider.getTracer('test'));
});
afterAll(async () => {
  useTracer(undefined);
  await provider.shutdown();
  await h?.close();
});

describe('userinfo in an absolute-form request target', () => {
  it.each([
    ['GET', 'http://CANARYUSER:CANARYPW@example.com/v1/models?limit=2', 200],
    ['POST', 'http://CANARYUSER:CANARYPW@example.com/v1/chat/completions', 200],
    ['POST', 'http://CANARYUSER:CANARYPW@example.com/v1/responses', 200],
    ['POST', 'http://CANARYUSER:CANARYPW@example.com/v1/embeddings', 200],
    ['GET', 'http://CANARYUSER:CANARYPW@example.com/recap/v1/conversations/c1', 404],
  ])('%s %s reaches no span, log line or upstream', async (method, target, status) => {
    exporter.reset();
    const before = h.fake.requests.length;
    const body = method === 'POST' ? { model: 'gpt-test-1', input: 'hi', messages: [{ role: 'user', content: 'hi' }] } : undefined;
    const res = await rawRequest(h.recap.url, { method, target, headers: { authorization: 'Bearer sk-userinfo' }, ...(body ? { body } : {}) });
    expect(res.status).toBe(status);
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const traced = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })));
    for (const part of USERINFO.split(':')) {
      expect(traced).not.toContain(part);
      expect(h.logs.text).not.toContain(part);
      expect(JSON.stringify(h.fake.requests.slice(before).map((r) => [r.path, r.headers]))).not.toContain(part);
    }
    // The request's own span names the path alone (the /recap/v1 routes have none).
    const server = spans.filter((s) => s.kind === SpanKind.SERVER).map((s) => s.attributes['url.path']);
    expect(server).toEqual(target.includes('/recap/') ? [] : [new URL(target).pathname]);
  });
});
