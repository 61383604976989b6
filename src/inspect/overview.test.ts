import { describe, expect, it } from 'vitest';
import { countName } from '../store/event-counts.js';
import { overviewOf } from './overview.js';

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
});
