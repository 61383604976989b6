import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';

// B32: on an `encoding: estimate` model recap calibrates its count from the usage upstreams report.
// A factor shared by every tenant let one tenant's traffic (text the estimate misjudges, 30
// requests) push it to a bound: another tenant's too-long prompt then went uncompacted into the
// window, or its fitting prompt was summarized. Each tenant now counts with its own factor, and
// one tenant moves the prior a new tenant starts from by a bounded step (tokens/calibration.ts).

const QUIET = 'ck-quiet-calib-3c5e7a9b1d2f4a6c8e0b1d3f5a';
const HOSTILE = 'ck-hostile-calib-7e5c3a1f9d8b6e4c2a0f9d7b5';
const NEWCOMER = 'ck-newcomer-calib-5a7c9e2b1d3f5a7c9e2b1d3f';
const LATE = 'ck-late-calib-9e2b1d3f5a7c9e2b1d3f5a7c9e2b';
const MARK = 'HOSTILE-TEXT';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: {
      summarizerModel: SUMMARIZER,
      // The upstream counts the hostile tenant's text at 2.5 times what the estimate makes of it,
      // everybody else's about as the estimate does.
      promptTokens: (req) => {
        const json = JSON.stringify(req.json.messages ?? []);
        return Math.ceil(((json.includes(MARK) ? 2.5 : 1) * json.length) / 4);
      },
    },
    models: [{ ...smallModel({}, { context_window: 8000, max_output_tokens: 500 }), encoding: 'estimate' }],
    extra: {
      background: { enabled: false },
      clients: [
        { name: 'quiet', key: QUIET },
        { name: 'hostile', key: HOSTILE },
        { name: 'newcomer', key: NEWCOMER },
        { name: 'late', key: LATE },
      ],
    },
  });
});
afterAll(async () => h?.close());

const PROBE = [{ role: 'user', content: 'Please list the deployment steps for the billing service, one per line, with the command for each. '.repeat(6) }];

async function tokensIn(key: string, messages: { role: string; content: string }[], conversation: string): Promise<number> {
  const r = await rawRequest(h.recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'x-conversation-id': conversation },
    body: { model: 'gpt-test-small', messages },
  });
  expect(r.status).toBe(200);
  return Number(r.headers['x-recap-tokens-in']);
}

describe("one tenant's calibration traffic", () => {
  it("does not move another tenant's count, and moves a new tenant's start by a bounded step", async () => {
    // The quiet tenant's own traffic settles its factor.
    for (let i = 0; i < 60; i++) await tokensIn(QUIET, PROBE, `quiet-${i}`);
    const quietBefore = await tokensIn(QUIET, PROBE, 'quiet-probe');
    // A tenant's first request is counted with the prior.
    const priorBefore = await tokensIn(NEWCOMER, PROBE, 'newcomer');
    const hostile = [{ role: 'user', content: `${MARK} ${'zq9 '.repeat(200)}` }];
    for (let i = 0; i < 30; i++) await tokensIn(HOSTILE, hostile, `hostile-${i}`);
    // The hostile tenant's own count followed its traffic.
    const hostileProbe = await tokensIn(HOSTILE, PROBE, 'hostile-probe');
    expect(hostileProbe).toBeGreaterThan(1.5 * quietBefore);
    expect(await tokensIn(QUIET, PROBE, 'quiet-probe-after')).toBe(quietBefore);
    expect(await tokensIn(LATE, PROBE, 'late')).toBeLessThanOrEqual(Math.ceil(priorBefore * 1.1));
  });
});
