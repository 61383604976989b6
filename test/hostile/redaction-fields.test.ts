import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from '../helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// Secrets reach the summarizer (and a stored summary) through every string of a message, not only
// its text: a message's `name`, the function name and arguments of a tool call, the name of a
// legacy function call, an unknown role, a content part's type. Each canary below sits in one such
// field of an evicted message; none may reach the summarizer's input or the stored rollup.

const CANARIES = {
  name: 'sk-proj-NAMEcanary0123456789abcdefXYZ',
  toolName: 'ghp_TOOLNAMEcanary0123456789abcdefABCDEF',
  toolArgs: 'sk-proj-ARGScanary0123456789abcdefXYZ',
  objectArgs: 'glpat-OBJARGScanary0123456789abc',
  legacyName: 'ghp_LEGACYcanary0123456789abcdefABCDEFGH',
  resultName: 'sk-proj-RESULTcanary0123456789abcdefXYZ',
  role: 'sk-proj-ROLEcanary0123456789abcdefXYZ',
  partType: 'hf_PARTTYPEcanary0123456789abcdefABCDEF',
} as const;

/** The over-budget history with its first, evicted round carrying the canaries in every field. */
function history(): Record<string, unknown>[] {
  const base = overBudgetHistory() as unknown as Record<string, unknown>[];
  const evicted: Record<string, unknown>[] = [
    { role: 'user', name: CANARIES.name, content: 'please look ORD-1001 up' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: CANARIES.toolName, arguments: `{"token":"${CANARIES.toolArgs}"}` } },
        { id: 'call_b', type: 'function', function: { name: 'lookup', arguments: { nested: { key: CANARIES.objectArgs } } } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: 'found it' },
    { role: 'tool', tool_call_id: 'call_b', name: CANARIES.resultName, content: 'found that too' },
    { role: 'assistant', content: null, function_call: { name: CANARIES.legacyName, arguments: '{}' } },
    { role: 'function', name: 'legacy', content: 'legacy result' },
    { role: CANARIES.role, content: 'an odd role' },
    {
      role: 'user',
      content: [
        { type: CANARIES.partType, data: 'x' },
        { type: 'text', text: 'and a part' },
      ],
    },
    { role: 'assistant', content: 'noted' },
  ];
  return [base[0]!, ...evicted, ...base.slice(1)];
}

function expectNoCanary(text: string): void {
  for (const [field, canary] of Object.entries(CANARIES)) expect(text, field).not.toContain(canary);
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [smallModel(), { ...smallModel({ strategy: 'template' }), match: 'gpt-test-template' }],
  });
});
afterAll(async () => h.close());

async function post(model: string, conversation: string) {
  const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-redaction', 'x-conversation-id': conversation },
    body: JSON.stringify({ model, messages: history() }),
  });
  await res.text();
  return res.headers.get('x-recap-action');
}

async function storedSummaries(conversation: string): Promise<string> {
  const res = await fetch(`${h.recap.url}/recap/v1/conversations/${conversation}`, { headers: { authorization: 'Bearer sk-redaction' } });
  expect(res.status).toBe(200);
  return JSON.stringify(await res.json());
}

describe('redaction of every field that reaches the summarizer', () => {
  it('summarize: no canary from a name, tool name, arguments, role or part type reaches the summarizer', async () => {
    const before = h.fake.summarizerRequests().length;
    expect(await post('gpt-test-small', 'fields-summarize')).toBe('compacted');
    const toSummarizer = h.fake
      .summarizerRequests()
      .slice(before)
      .map((r) => r.body)
      .join('\n');
    // The evicted round did reach it, with its fields redacted in place.
    expect(toSummarizer).toContain('ORD-1001');
    expect(toSummarizer).toContain('[REDACTED:github_token]');
    expectNoCanary(toSummarizer);
    expectNoCanary(await storedSummaries('fields-summarize'));
  });

  it('template: the stored rollup carries no canary either', async () => {
    expect(await post('gpt-test-template', 'fields-template')).toBe('compacted');
    const stored = await storedSummaries('fields-template');
    expect(stored).toContain('ORD-1001');
    expectNoCanary(stored);
  });
});
