import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';
import { createUnmatchedModelNotice } from './unmatched-models.js';

function notice(maxNames?: number) {
  const lines: { msg: string; model?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const metrics = createMetrics();
  return { note: createUnmatchedModelNotice(createLogger('warn', sink), metrics, maxNames), lines, metrics };
}

describe('createUnmatchedModelNotice', () => {
  it('warns once per name, bounded in names and in each name’s length, and counts every call', async () => {
    const { note, lines, metrics } = notice(3);
    for (const name of ['a', 'b', 'a', 'x'.repeat(5000), 'c', 'd', 'e']) note(name);
    expect(lines.map((l) => l.model ?? l.msg)).toEqual(['a', 'b', `${'x'.repeat(200)}…[4800 more chars]`, expect.stringMatching(/^more model names no models\[\] entry matches/)]);
    expect((await metrics.unmatchedModels.get()).values[0]!.value).toBe(7);
  });
});
