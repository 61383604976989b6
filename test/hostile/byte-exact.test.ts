import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from '../helpers/conversation.js';
import { CHAT_RECALL_TOOL_JSON } from '../../src/recall/tool.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// docs/design.md rule 12: when recap rewrites a request (a new summary, or a stored one reused), only
// `messages` changes, and `tools` gains recap_recall after the client's own (rule 13). Every other byte of the client's body reaches the upstream as the client
// wrote it, numbers a JSON round trip would change included (`seed` 9007199254740993 → ...992,
// `temperature` 1e400 → null, `top_p` -0 → 0), and so does each message recap keeps: byte for byte.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
});
afterAll(async () => h.close());

// Written by hand: spacing, key order, escapes and numbers no serializer would reproduce.
const HEAD = '{ "temperature" : 1e400,\n  "seed": 9007199254740993, "model":"gpt-test-small",\t"top_p": -0,\n  "messages" :';
const TAIL = ',\n  "x_unknown": {"z": [1.50, 2E+3], "a": "caf\\u00e9 \\ud83d\\ude00"}, "max_tokens": 300,\n  "user": "u\\/1" }';
// The client sent no tools: recap_recall's go in a member of their own, at the end.
const FORWARDED_TAIL = `${TAIL.slice(0, -1)},"tools":[${CHAT_RECALL_TOOL_JSON}]}`;

/** Each message as raw JSON text, with a few written the way a hand-rolled client might. */
function messageTexts(rounds: number): string[] {
  const texts = ['{"role":"system","content":"ops"}'];
  for (let t = 1; t <= rounds; t++) {
    texts.push(`{ "content" : ${JSON.stringify(prose(t))}, "role":"user", "name": "caf\\u00e9" }`);
    texts.push(`{"role":"assistant","content":"ok ${t}","refusal":null,"extra":1e400}`);
  }
  return texts;
}

function body(texts: string[]): string {
  return `${HEAD} [ ${texts.join(' ,\n ')} ]${TAIL}`;
}

async function send(texts: string[], conversation: string): Promise<{ action: string | null; forwarded: string }> {
  const before = h.fake.chatRequests().length;
  const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bytes', 'x-conversation-id': conversation },
    body: body(texts),
  });
  expect(res.status).toBe(200);
  await res.text();
  const forwarded = h.fake
    .chatRequests()
    .slice(before)
    .filter((r) => r.json?.model !== SUMMARIZER);
  expect(forwarded).toHaveLength(1);
  return { action: res.headers.get('x-recap-action'), forwarded: forwarded[0]!.body };
}

/** The forwarded body must be HEAD + ' ' + [ pinned, summary, opening task, the client's last messages ] + TAIL (with the tool), byte for byte. */
function expectSpliced(forwarded: string, texts: string[]): void {
  expect(forwarded.startsWith(HEAD)).toBe(true);
  expect(forwarded.endsWith(FORWARDED_TAIL)).toBe(true);
  const array = forwarded.slice(HEAD.length, forwarded.length - FORWARDED_TAIL.length);
  const sent = JSON.parse(array) as { role: string; content: string }[];
  expect(sent[1]!.content).toContain('[recap:summary v1]');
  // After the summary: the opening task (kept in every view, rule 1), then the newest messages.
  const kept = texts.slice(texts.length - (sent.length - 3));
  // The space after HEAD's colon is the client's too; the array itself is recap's, without spaces.
  expect(array).toBe(` [${[texts[0]!, JSON.stringify(sent[1]), texts[1]!, ...kept].join(',')}]`);
}

describe('a rewritten request changes nothing but messages', () => {
  it('on a compacted turn and on the reused turn after it', async () => {
    const first = messageTexts(30);
    first.push('{"role":"user","content":"what next?"}');
    const compacted = await send(first, 'byte-exact');
    expect(compacted.action).toBe('compacted');
    expectSpliced(compacted.forwarded, first);
    for (const field of ['"seed": 9007199254740993', '"temperature" : 1e400', '"top_p": -0']) expect(compacted.forwarded).toContain(field);

    const second = [...first, '{"role":"assistant","content":"fine"}', '{"role":"user","content":"and then?"}'];
    const reused = await send(second, 'byte-exact');
    expect(reused.action).toBe('reused');
    expectSpliced(reused.forwarded, second);
  });
});
