import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import type { RequestLog } from '../observability/request-log.js';
import { errorType, pathOnly, requestAttributes, requestFailed, spanName, truncate } from './attributes.js';

// The spans of the request path, behind four wrappers that the code they wrap calls in one line.
// With tracing off (no tracer set: the default) each wrapper is one comparison and a direct call.

let tracer: Tracer | undefined;

/** Set at boot by startTracing; undefined turns every wrapper into a plain call. */
export function useTracer(t: Tracer | undefined): void {
  tracer = t;
}

function failed(span: Span, err: unknown): void {
  span.setAttribute('error.type', errorType(err));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * One span per HTTP request, a child of the caller's `traceparent` when it sends one; its
 * attributes are read from the outcome `serve` returns (observability/outcome.ts) and the response.
 */
export function traceRequest(opened: RequestLog, req: IncomingMessage, res: ServerResponse, serve: () => Promise<RequestLog>): Promise<RequestLog> {
  if (tracer === undefined) return serve();
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(spanName(opened), { kind: SpanKind.SERVER, attributes: { 'url.path': pathOnly(req.url ?? '/') } }, parent);
  const end = (outcome: RequestLog, err?: unknown) => {
    const done = { ...outcome, status: outcome.status ?? res.statusCode };
    span.setAttributes(requestAttributes(done));
    if (err !== undefined) failed(span, err);
    else if (requestFailed(done)) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  return context.with(trace.setSpan(parent, span), serve).then(
    (outcome) => {
      end(outcome);
      return outcome;
    },
    (err: unknown) => {
      end(opened, err);
      throw err;
    },
  );
}

/** A store call (load, add_checkpoint, lock, ...), a child of the request that made it. */
export function traceStore<T>(store: string, op: string, call: () => Promise<T>): Promise<T> {
  if (tracer === undefined) return call();
  return tracer.startActiveSpan(`store ${op}`, { kind: SpanKind.CLIENT, attributes: { 'db.operation.name': op, 'recap.store': store } }, async (span) => {
    try {
      return await call();
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** What a span reads of a summarizer call (summarizer/client.ts): the model asked, where, and its limit. */
interface SummarizerCallShape {
  model: string;
  upstream: string;
  maxTokens: number;
}

/** What a span reads of a summarizer's reply: the tokens it reported. */
interface SummarizerReplyShape {
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
}

/** The summarizer call, with the model asked and the tokens it reported. */
export function traceSummarizer<C extends SummarizerCallShape, R extends SummarizerReplyShape>(summarize: (call: C) => Promise<R>): (call: C) => Promise<R> {
  return (call) => {
    if (tracer === undefined) return summarize(call);
    const attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': truncate(call.model, 128),
      'recap.upstream': call.upstream,
      'gen_ai.request.max_tokens': call.maxTokens,
    };
    return tracer.startActiveSpan('summarizer', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const reply = await summarize(call);
        if (reply.promptTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', reply.promptTokens);
        if (reply.completionTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', reply.completionTokens);
        span.setAttribute('recap.summarizer.outcome', 'ok');
        return reply;
      } catch (err) {
        span.setAttribute('recap.summarizer.outcome', errorType(err));
        failed(span, err);
        throw err;
      } finally {
        span.end();
      }
    });
  };
}

/** A request to an upstream, from sending it to the end of its response body. */
export function traceUpstream(upstream: string, req: { method: string; path: string }, send: () => Promise<Dispatcher.ResponseData>): Promise<Dispatcher.ResponseData> {
  if (tracer === undefined) return send();
  const attributes = { 'recap.upstream': upstream, 'http.request.method': req.method, 'url.path': pathOnly(req.path) };
  const span = tracer.startSpan(`upstream ${req.method}`, { kind: SpanKind.CLIENT, attributes });
  return send().then(
    (response) => {
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      // 'close' comes once the body was read, dumped or destroyed; no listener changes its flow.
      response.body.once('close', () => {
        if (response.body.errored) failed(span, response.body.errored);
        span.end();
      });
      return response;
    },
    (err: unknown) => {
      failed(span, err);
      span.end();
      throw err;
    },
  );
}
