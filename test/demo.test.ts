import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../src/demo/demo.js';

// `recap demo` end to end: the real fake upstream, recap and SDK, reading only what the user sees.

class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    this.text += chunk.toString('utf8');
    cb();
  }
}

/** The table rows of the output: [turn, client sent, forwarded, action]. */
function rows(text: string): { turn: number; sent: number; forwarded: number; action: string }[] {
  return [...text.matchAll(/^\s*(\d+)\s+([\d,]+)\s+([\d,]+)\s+(\w+)\s+\d+ ms$/gm)].map((m) => ({
    turn: Number(m[1]),
    sent: Number(m[2]!.replaceAll(',', '')),
    forwarded: Number(m[3]!.replaceAll(',', '')),
    action: m[4]!,
  }));
}

describe('recap demo', () => {
  it('prints a row per turn showing an inline compaction, then reuse of stored and background summaries', async () => {
    const out = new TextSink();
    await runDemo({ turns: 18, out });

    const table = rows(out.text);
    expect(table.map((r) => r.turn)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    const actions = table.map((r) => r.action);
    expect(actions.filter((a) => a === 'compacted').length).toBeGreaterThanOrEqual(1);
    expect(actions.filter((a) => a === 'reused').length).toBeGreaterThanOrEqual(5);
    expect(actions).not.toContain('degraded');
    for (const r of table) {
      if (r.action === 'none') expect(r.forwarded).toBe(r.sent);
      else expect(r.forwarded).toBeLessThan(r.sent);
    }
    // The footer's summarizer count shows background work, not only inline calls.
    const calls = /summarizer calls: (\d+) \((\d+) inline on the request path, (\d+) in the background\)/.exec(out.text);
    expect(calls).not.toBeNull();
    expect(Number(calls![3])).toBeGreaterThanOrEqual(1);
    expect(out.text).toMatch(/saved [\d,]+ \(\d+%\)/);
  });

  it('rejects a turn count that is not a positive integer', async () => {
    await expect(runDemo({ turns: 0, out: new TextSink() })).rejects.toThrow('--turns');
  });
});
