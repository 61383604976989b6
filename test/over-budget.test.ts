import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequest } from '../src/tokens/count-request.js';
import { logPart } from './helpers/agent-task.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';

// Rule 1's last clause: only the newest step is always kept verbatim, and when it alone is over
// the budget recap forwards it and says so (x-recap-budget below x-recap-tokens-out, a warning
// in the log, a metric) instead of pretending all is well. Both headers count the tool
// definitions (issue 26: tokens-out counted them and the budget had already taken them out, so
// agents' requests that fit were reported over budget all day).

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
});
afterAll(async () => h?.close());

function overBudgetWarnings(): number {
  return h.logs.lines.filter((l) => (JSON.parse(l) as { msg: string }).msg.startsWith('request over budget')).length;
}

async function overBudgetMetric(): Promise<number> {
  const text = await (await fetch(`${h.recap.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('recap_over_budget_total{model="gpt-test-small"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('a newest step that alone is over the budget', () => {
  it('is forwarded, and the headers, the log and the metrics say it does not fit', async () => {
    const [warnings, metric] = [overBudgetWarnings(), await overBudgetMetric()];
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
    const warning = h.logs.lines
      .map((l) => JSON.parse(l) as { level: number; msg: string; budget?: number })
      .filter((l) => l.msg.startsWith('request over budget'))
      .at(-1);
    expect(warning).toMatchObject({ level: 40, budget });
    expect(overBudgetWarnings()).toBe(warnings + 1);
    expect(await overBudgetMetric()).toBe(metric + 1);
  });

  it('is not reported when the request fits', async () => {
    const [warnings, metric] = [overBudgetWarnings(), await overBudgetMetric()];
    const { response } = await h
      .client({ conversation: 'fits' })
      .chat.completions.create({ model: 'gpt-test-small', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    expect(Number(response.headers.get('x-recap-tokens-out'))).toBeLessThanOrEqual(Number(response.headers.get('x-recap-budget')));
    expect(overBudgetWarnings()).toBe(warnings);
    expect(await overBudgetMetric()).toBe(metric);
  });
});

// About 900 tokens of tool definitions: an agent's usual tool belt.
const description = Array.from({ length: 60 }, (_, i) => `Option ${i}: what the flag --opt-${i} of the runner changes.`).join(' ');
const chatTools = [{ type: 'function' as const, function: { name: 'run', description, parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const responsesTools = [{ type: 'function' as const, name: 'run', description, parameters: { type: 'object', properties: { command: { type: 'string' } } }, strict: false }];
/** Messages of about 1,400 tokens: under the 2,700-token window minus output even with the tools, over it without their share. */
const fitting = [
  { role: 'system' as const, content: 'You are an ops agent.' },
  { role: 'user' as const, content: logPart(2) },
];
const toolsTokens = countRequest({ model: 'gpt-test-small', messages: [], tools: chatTools }, undefined).tools_tokens;

type Route = { route: string; send(conversation: string, messages: typeof fitting, huge?: string): Promise<Headers> };
const routes: Route[] = [
  {
    route: 'chat completions',
    async send(conversation, messages, huge) {
      const extra = huge
        ? [
            { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'run', arguments: '{}' } }] },
            { role: 'tool' as const, tool_call_id: 'c1', content: huge },
          ]
        : [];
      const { response } = await h
        .client({ conversation })
        .chat.completions.create({ model: 'gpt-test-small', messages: [...messages, ...extra], tools: chatTools })
        .withResponse();
      return response.headers;
    },
  },
  {
    route: 'responses',
    async send(conversation, messages, huge) {
      const extra = huge
        ? [
            { type: 'function_call', call_id: 'c1', name: 'run', arguments: '{}' },
            { type: 'function_call_output', call_id: 'c1', output: huge },
          ]
        : [];
      const { response } = await h
        .client({ conversation })
        .responses.create({ model: 'gpt-test-small', input: [...messages, ...extra] as never, tools: responsesTools, store: false })
        .withResponse();
      return response.headers;
    },
  },
];

describe.each(routes)('a request with tool definitions ($route)', ({ route, send }) => {
  it('that fits the window minus the output reservation is not reported over budget: header, log and metric', async () => {
    expect(toolsTokens).toBeGreaterThan(700);
    const [warnings, metric] = [overBudgetWarnings(), await overBudgetMetric()];
    const headers = await send(`tools-fit-${route}`, fitting);
    const out = Number(headers.get('x-recap-tokens-out'));
    // The headers measure alike: both with the tool definitions; the whole prompt fits 3,000 − 300.
    expect(Number(headers.get('x-recap-budget'))).toBe(2700);
    expect(out).toBeGreaterThan(2700 - toolsTokens);
    expect(out).toBeLessThanOrEqual(2700);
    expect(headers.get('x-recap-action')).toBe('none');
    expect(overBudgetWarnings()).toBe(warnings);
    expect(await overBudgetMetric()).toBe(metric);
  });

  it('whose newest step alone does not fit is reported over budget: header, log and metric', async () => {
    const [warnings, metric] = [overBudgetWarnings(), await overBudgetMetric()];
    const headers = await send(`tools-over-${route}`, fitting, logPart(4));
    expect(Number(headers.get('x-recap-tokens-out'))).toBeGreaterThan(Number(headers.get('x-recap-budget')));
    expect(overBudgetWarnings()).toBe(warnings + 1);
    expect(await overBudgetMetric()).toBe(metric + 1);
  });
});
