import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPart } from './helpers/agent-task.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';

// Rule 1's last clause: only the newest step is always kept verbatim, and when it alone is over
// the budget recap forwards it and says so (x-recap-budget below x-recap-tokens-out, a warning
// in the log, a metric) instead of pretending all is well.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
});
afterAll(async () => h?.close());

async function overBudgetMetric(): Promise<number> {
  const text = await (await fetch(`${h.recap.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('recap_over_budget_total{model="gpt-test-small"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('a newest step that alone is over the budget', () => {
  it('is forwarded, and the headers, the log and the metrics say it does not fit', async () => {
    const huge = [logPart(1), logPart(2), logPart(3), logPart(4)].join('\n');
    const { response } = await h
      .client({ conversation: 'too-big-step' })
      .chat.completions.create({
        model: 'gpt-test-small',
        messages: [
          { role: 'system', content: 'You are an ops agent.' },
          { role: 'user', content: 'Read the log.' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_log', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: huge },
        ],
      })
      .withResponse();
    const budget = Number(response.headers.get('x-recap-budget'));
    expect(budget).toBe(2700);
    expect(Number(response.headers.get('x-recap-tokens-out'))).toBeGreaterThan(budget);
    expect((h.fake.chatRequests().at(-1)!.json as { messages: { content: string }[] }).messages.at(-1)!.content).toBe(huge);
    const warning = h.logs.lines.map((l) => JSON.parse(l) as { level: number; msg: string; budget?: number }).find((l) => l.msg.startsWith('request over budget'));
    expect(warning).toMatchObject({ level: 40, budget });
    expect(await overBudgetMetric()).toBe(1);
  });

  it('is not reported when the request fits', async () => {
    const { response } = await h
      .client({ conversation: 'fits' })
      .chat.completions.create({ model: 'gpt-test-small', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    expect(Number(response.headers.get('x-recap-tokens-out'))).toBeLessThanOrEqual(Number(response.headers.get('x-recap-budget')));
    expect(await overBudgetMetric()).toBe(1);
  });
});
