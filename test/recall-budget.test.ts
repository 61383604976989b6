import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequest } from '../src/tokens/count-request.js';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { READ_FILE_TOOL, recallModel, taskHistory, toolNames } from './helpers/recall-task.js';

// Recall and the budget (rule 3, rule 13): the recall tool's definition counts only against views
// that carry it. A request the client sent below the trigger goes as sent, recall on or off (B31);
// a compacted view that carries recap_recall leaves recall.answer_room_tokens free, so that one
// recall answer fits on the turns that need it most.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel(), recallModel({ answer_room_tokens: 600 })] });
});
afterAll(async () => h?.close());

type Msg = { role: string; content: string };

async function send(model: string, conversation: string, messages: unknown[], extra: Record<string, unknown> = {}) {
  const r = await rawRequest(h.recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-test-key', 'x-conversation-id': conversation },
    body: { model, messages, ...extra },
  });
  expect(r.status).toBe(200);
  return r.headers;
}

/** A chat history whose prompt tokens as sent are between `low` and `high`. */
function historyBetween(low: number, high: number): Msg[] {
  const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let turn = 1; ; turn++) {
    messages.push({ role: 'user', content: prose(turn, 120) }, { role: 'assistant', content: prose(turn + 50, 120) });
    let tokens = countRequest({ model: 'gpt-test-small', messages } as never, undefined).prompt_tokens;
    if (tokens < low) continue;
    while (tokens > high) {
      const last = messages.at(-1)!;
      if (last.content.length <= 40) messages.pop();
      else last.content = last.content.slice(0, -40);
      tokens = countRequest({ model: 'gpt-test-small', messages } as never, undefined).prompt_tokens;
    }
    return messages;
  }
}

describe('the recall tool and the trigger', () => {
  it('never compacts a request the client sent below the trigger, on a model that offers recall (B31)', async () => {
    // gpt-test-small: a 3,000-token window, 300 kept for the reply: a budget of 2,700.
    for (const [low, high] of [
      [2_600, 2_620],
      [2_650, 2_680],
    ] as const) {
      const messages = historyBetween(low, high);
      const headers = await send('gpt-test-small', `b31-${low}`, [...messages, { role: 'user', content: 'And now?' }]);
      expect(Number(headers['x-recap-tokens-in'])).toBeLessThanOrEqual(2_700);
      expect(headers['x-recap-action']).toBe('none');
      expect(h.fake.chatRequests().at(-1)!.body).not.toContain('recap_recall');
    }
  });
});

describe('room for a recall answer', () => {
  it('is kept free in a compacted view that carries recap_recall', async () => {
    for (const steps of [12, 16, 20]) {
      const headers = await send('gpt-test-recall', `room-${steps}`, taskHistory(`room${steps}`, steps), { tools: [READ_FILE_TOOL] });
      const forwarded = h.fake.chatRequests().at(-1)!;
      expect(toolNames(forwarded)).toContain('recap_recall');
      // x-recap-tokens-out counts the tools, recap_recall's among them, as x-recap-budget does.
      expect(Number(headers['x-recap-budget']) - Number(headers['x-recap-tokens-out'])).toBeGreaterThanOrEqual(600);
    }
  });
});
