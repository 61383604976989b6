import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';

// Rule 5: secrets in evicted messages never reach the summarizer (and so never a stored summary).
// The summarizer's failures are in hostile/summarizer-faults.test.ts.

const CANARY = 'sk-proj-CANARYcanary0123456789abcdefXYZ';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
});
afterAll(async () => h.close());

describe('redaction', () => {
  it('never sends a secret from an evicted message to the summarizer', async () => {
    const messages = overBudgetHistory(` my key is ${CANARY} and Authorization: Bearer abcdef0123456789abcdef`);
    const { response } = await h.client({ conversation: 'redact' }).chat.completions.create({ model: 'gpt-test-small', messages }).withResponse();
    expect(response.headers.get('x-recap-action')).toBe('compacted');
    const toSummarizer = h.fake
      .summarizerRequests()
      .map((r) => r.body)
      .join('\n');
    expect(toSummarizer).toContain('ORD-1002');
    expect(toSummarizer).not.toContain(CANARY);
    expect(toSummarizer).not.toContain('abcdef0123456789abcdef');
    expect(toSummarizer).toContain('[REDACTED');
  });
});
