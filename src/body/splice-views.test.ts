import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { noPause } from '../slicing/slicer.js';
import { readChatRequest } from '../wire/chat/parse-request.js';
import { spliceArray, withMember } from './splice.js';

// Whatever view recap hands the splice (kept runs, a summary it made, cleared stubs, items out of
// order or twice), each element is the client's own bytes of that item, recap's serialization of
// what it made, or the client's bytes with one member replaced: the reference below writes every
// element on its own, and the splice's runs of the client's bytes must come out the same.

const separator = fc.constantFrom(',', ' ,', ', ', ',\n  ');
const client = fc.array(fc.tuple(fc.constantFrom('user', 'assistant', 'tool'), fc.string({ maxLength: 5 }), separator), { minLength: 1, maxLength: 12 });
/** A view element: a client item by index, a stub of one, or one recap made. */
const element = fc.oneof(
  fc.nat().map((i) => ({ kind: 'own' as const, i })),
  fc.nat().map((i) => ({ kind: 'stub' as const, i })),
  fc.string({ maxLength: 5 }).map((text) => ({ kind: 'made' as const, text })),
);

describe('spliceArray over any view', () => {
  it('writes each element as the client wrote it, as recap made it, or with its one member replaced', async () => {
    await fc.assert(
      fc.asyncProperty(client, fc.array(element, { maxLength: 20 }), fc.boolean(), async (items, picks, sequential) => {
        const elements = items.map(([role, text]) => `{"role":${JSON.stringify(role)},"content":${JSON.stringify(text)},"n":1e400}`);
        const body = `{"model":"m","messages":[${elements.map((e, i) => (i === 0 ? e : `${items[i - 1]![2]}${e}`)).join('')}],"seed":9007199254740993}`;
        const chat = await readChatRequest(Buffer.from(body), noPause);
        const original = chat.body.messages;
        // A view as the engine builds one: mostly the client's order (sequential), else anything.
        const view: ChatMessage[] = [];
        const expected: string[] = [];
        for (const [k, pick] of (sequential ? original.map((_, i) => ({ kind: 'own' as const, i })) : picks).entries()) {
          if (pick.kind === 'made') {
            view.push({ role: 'system', content: pick.text });
            expected.push(JSON.stringify({ role: 'system', content: pick.text }));
            continue;
          }
          const i = (pick.i + k) % original.length;
          if (pick.kind === 'own') {
            view.push(original[i]!);
            expected.push(elements[i]!);
          } else {
            view.push(withMember(original[i]!, 'content', 'cleared'));
            expected.push(elements[i]!.replace(/"content":("(?:[^"\\]|\\.)*")/, '"content":"cleared"'));
          }
        }
        const out = spliceArray(chat, 'messages', original, view).toString('utf8');
        expect(out).toBe(`{"model":"m","messages":[${expected.join(',')}],"seed":9007199254740993}`);
      }),
      { numRuns: 300 },
    );
  });
});
