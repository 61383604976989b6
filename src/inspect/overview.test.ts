import { describe, expect, it } from 'vitest';
import { countName, eventCounts } from '../store/event-counts.js';
import type { ConversationEvent } from '../store/event-log.js';
import { figuresView, overviewOf, quantile, resolutionFor } from './overview.js';

const event = (over: Partial<ConversationEvent>): ConversationEvent => ({
  at: 0,
  route: 'chat',
  model: 'gpt-4o',
  model_label: 'gpt-4o*',
  action: 'none',
  tokens_in: 100,
  tokens_out: 100,
  cleared: 0,
  summarizer_calls: 0,
  summarizer_tokens: 0,
  recalls: 0,
  latency_ms: 100,
  status: 200,
  ...over,
});

describe('overviewOf', () => {
  it('turns count buckets into per-model figures, per bucket and in total', () => {
    const at = Date.UTC(2026, 0, 1, 10);
    const o = overviewOf(
      [
        { at, counts: { [countName('gpt-4o*', 'requests')]: 2, [countName('gpt-4o*', 'tokens_saved')]: 500, [countName('gpt-4o*', 'action.compacted')]: 1 } },
        { at: at + 3_600_000, counts: { [countName('gpt-4o*', 'requests')]: 1, [countName('a|b', 'audit.reused')]: 4, [countName('gpt-4o*', 'no_such_metric')]: 9 } },
      ],
      'hour',
    );
    expect(o.bucket_seconds).toBe(3600);
    expect(o.buckets.map((b) => b.at)).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z']);
    expect(o.totals['gpt-4o*']).toMatchObject({ requests: 3, tokens_saved: 500, actions: { compacted: 1 }, audit: {} });
    // A label may hold the separator itself: the metric is what follows the last one.
    expect(o.totals['a|b']).toMatchObject({ requests: 0, audit: { reused: 4 } });
    expect(o.buckets[0]!.models['gpt-4o*']!.requests).toBe(2);
  });

  it('adds up routes over models, with errors, recalls, money and latency percentiles of the whole time and recap’s own (issue 38)', () => {
    const events = [
      ...Array.from({ length: 18 }, (_, i) => event({ latency_ms: 200 + i, own_ms: 3 })),
      event({ latency_ms: 4000, own_ms: 40, status: 502, error: 'upstream_unreachable', recalls: 2, cost: 0.25, cost_saved: 0.5, cached_tokens: 60 }),
      event({ latency_ms: 20, model_label: '(pass-through)', route: 'embeddings', status: 200 }),
    ];
    const counts: Record<string, number> = {};
    for (const e of events) for (const [k, n] of Object.entries(eventCounts(e))) counts[k] = (counts[k] ?? 0) + n;
    const o = overviewOf([{ at: 0, counts }], 'minute');
    const chat = figuresView(o.routes.chat!);
    expect(chat).toMatchObject({ requests: 19, errors: 1 });
    // 18 of 19 between 100 and 250 ms, one past 2.5 s: p50 in the first, p95 in the second.
    expect(chat.latency_ms.p50).toBeGreaterThan(100);
    expect(chat.latency_ms.p50).toBeLessThanOrEqual(250);
    expect(chat.latency_ms.p95).toBeGreaterThan(2500);
    expect(chat.own_latency_ms.p50).toBeLessThanOrEqual(10);
    expect(figuresView(o.routes.embeddings!)).toMatchObject({ requests: 1, errors: 0, own_latency_ms: { p50: null, p95: null } });
    expect(o.totals['gpt-4o*']).toMatchObject({ requests: 19, errors: 1, recalls: 2, cost: 0.25, cost_saved: 0.5, cached_tokens: 60 });
    expect(o.totals['(pass-through)']).toMatchObject({ requests: 1 });
  });
});

describe('quantile', () => {
  it('interpolates within the bucket the rank falls in, and is null for no requests', () => {
    expect(quantile({}, 0.5)).toBeNull();
    expect(quantile({ le100: 10 }, 0.5)).toBe(75);
    expect(quantile({ le10: 1, inf: 1 }, 0.95)).toBe(300_000);
  });
});

describe('resolutionFor', () => {
  it('reads minute buckets for a short recent range only', () => {
    const now = Date.UTC(2026, 0, 2);
    expect(resolutionFor(now - 3_600_000, now, now)).toBe('minute');
    expect(resolutionFor(now - 86_400_000, now, now)).toBe('hour');
    expect(resolutionFor(now - 86_400_000, now - 86_400_000 + 3_600_000, now)).toBe('hour');
  });
});
