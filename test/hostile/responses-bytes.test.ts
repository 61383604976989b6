import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from '../helpers/conversation.js';
import { type Harness, SUMMARIZER, startHarness } from '../helpers/harness.js';

// Rule 12 on the Responses route: when recap rewrites a request only `input` changes. Every other
// byte reaches the upstream as the client wrote it (numbers a JSON round trip would change, key
// order, spacing, escapes), and so does each item recap keeps; a body naming `input` (or another
// key recap reads) twice is refused rather than forwarded ambiguously.

const MODEL = 'gpt-test-responses';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    // Recall off: with it, `tools` gains recap_recall too (test/recall-responses.test.ts).
    models: [
      {
        match: MODEL,
        context_window: 3000,
        max_output_tokens: 300,
        compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 250 },
        recall: { enabled: false },
      },
    ],
  });
});
afterAll(async () => h.close());

const HEAD = `{ "temperature" : 1e400,\n  "seed": 9007199254740993, "model":"${MODEL}",\t"top_p": -0, "store": false,\n  "input" :`;
const TAIL = ',\n  "instructions": "caf\\u00e9 ops", "x_unknown": {"z": [1.50, 2E+3]}, "max_output_tokens": 300 }';

function itemTexts(rounds: number): string[] {
  const texts = ['{"role":"developer","content":"Be brief."}'];
  for (let t = 1; t <= rounds; t++) {
    texts.push(`{ "type":"message", "content" : [{"type":"input_text","text":${JSON.stringify(prose(t))}}], "role":"user" }`);
    texts.push(`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"ok ${t}","annotations":[]}],"extra":1e400}`);
  }
  return texts;
}

async function send(text: string, conversation: string) {
  const before = h.fake.responsesRequests().length;
  const res = await fetch(`${h.recap.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bytes', 'x-conversation-id': conversation },
    body: text,
  });
  const answer = await res.text();
  return {
    status: res.status,
    answer,
    action: res.headers.get('x-recap-action'),
    forwarded: h.fake
      .responsesRequests()
      .slice(before)
      .map((r) => r.body),
  };
}

describe('a rewritten Responses request changes nothing but input', () => {
  it('on a compacted turn and on the reused turn after it', async () => {
    const first = itemTexts(30);
    first.push('{"role":"user","content":"what next?"}');
    const second = [...first, '{"type":"message","role":"assistant","content":[{"type":"output_text","text":"fine","annotations":[]}]}', '{"role":"user","content":"and then?"}'];
    for (const [texts, action] of [
      [first, 'compacted'],
      [second, 'reused'],
    ] as const) {
      const { status, action: got, forwarded } = await send(`${HEAD} [ ${texts.join(' ,\n ')} ]${TAIL}`, 'responses-bytes');
      expect(status).toBe(200);
      expect(got).toBe(action);
      expect(forwarded).toHaveLength(1);
      const body = forwarded[0]!;
      expect(body.startsWith(HEAD)).toBe(true);
      expect(body.endsWith(TAIL)).toBe(true);
      const array = body.slice(HEAD.length, body.length - TAIL.length);
      const sent = JSON.parse(array) as { content: unknown }[];
      expect(String(sent[1]!.content)).toContain('[recap:summary v1]');
      // After the summary: the opening task (kept in every view, rule 1), then the newest items, each as the client wrote it.
      const kept = texts.slice(texts.length - (sent.length - 3));
      expect(array).toBe(` [${[texts[0]!, JSON.stringify(sent[1]), texts[1]!, ...kept].join(',')}]`);
    }
  });

  it('refuses a body that names input or model twice, forwarding nothing', async () => {
    for (const text of [`{"model":"${MODEL}","input":[],"input":[{"role":"user","content":"hi"}]}`, `{"model":"${MODEL}","input":"hi","m\\u006fdel":"other"}`]) {
      const { status, answer, forwarded } = await send(text, 'dupes');
      expect(status).toBe(400);
      expect(JSON.parse(answer)).toMatchObject({ error: { code: 'invalid_request', type: 'invalid_request_error' } });
      expect(forwarded).toEqual([]);
    }
  });
});
