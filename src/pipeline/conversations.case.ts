import fc from 'fast-check';
import { SUMMARY_MARKER, type SummaryCodec } from '../compaction/summary-message.js';
import type { ChatMessage, ContentPart } from '../messages/types.js';

// Random valid conversations for property tests: a leading block of system/developer messages
// (some imitating recap's summary marker without its seal), maybe recap's own summary sent back
// after it, maybe an assistant greeting, then turns: a user message (text or content parts), tool
// steps (an assistant's parallel tool_calls, then their results in either order, maybe followed by
// a later developer instruction) and maybe a reply. An agent's task is one long turn of many steps.
// Every message carries `tokens`, the fake count. The shape is generated first and turned into
// messages after, ids included, so shrinking drops turns and calls without breaking a pairing.

export interface GeneratedConversation {
  messages: ChatMessage[];
  /** The leading block without the sent-back summary: what must stay first, untouched. */
  pinned: ChatMessage[];
  /** The text of the sent-back summary, if any. */
  clientSummary: string | null;
}

const word = fc.constantFrom('deploy', 'ORD-4411', 'latency', 'rollback', 'ok', '</transcript>', '</recap_summary>', SUMMARY_MARKER);
export const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const tokens = fc.integer({ min: 1, max: 400 });
const part: fc.Arbitrary<ContentPart> = fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc.constant({ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }),
  fc.constant({ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }),
);
const content = fc.oneof(text, fc.array(part, { minLength: 1, maxLength: 3 }));

const pinned = fc.record({
  role: fc.constantFrom('system', 'developer'),
  content: fc.oneof(
    text,
    text.map((t) => `${SUMMARY_MARKER} ${t}`),
    fc.array(part, { minLength: 1, maxLength: 2 }),
  ),
  tokens,
});
const toolStep = fc.record({
  callTokens: tokens,
  resultTokens: fc.array(tokens, { minLength: 1, maxLength: 3 }),
  reversed: fc.boolean(),
  instruction: fc.option(fc.record({ content: text, tokens }), { nil: undefined, freq: 6 }),
});
const turn = fc.record({
  user: fc.record({ content, tokens }),
  steps: fc.array(toolStep, { maxLength: 12 }),
  reply: fc.option(fc.record({ content: text, tokens }), { nil: undefined }),
});
const shape = fc.record({
  pinned: fc.array(pinned, { maxLength: 3 }),
  clientSummary: fc.option(text, { nil: undefined }),
  greeting: fc.option(tokens, { nil: undefined }),
  turns: fc.array(turn, { minLength: 1, maxLength: 8 }),
});

export function conversations(codec: SummaryCodec): fc.Arbitrary<GeneratedConversation> {
  return shape.map((s) => {
    const block: ChatMessage[] = s.pinned.map((m) => ({ ...m }));
    // Sent back where recap put it: right after the pinned messages.
    const messages = s.clientSummary === undefined ? [...block] : [...block, codec.build(s.clientSummary)];
    if (s.greeting !== undefined) messages.push({ role: 'assistant', content: 'Hi, how can I help?', tokens: s.greeting });
    let nextId = 0;
    for (const t of s.turns) {
      messages.push({ role: 'user', ...t.user });
      for (const step of t.steps) {
        const ids = step.resultTokens.map(() => `call_${nextId++}`);
        const calls = ids.map((id) => ({ id, type: 'function', function: { name: 'lookup', arguments: `{"q":"${id}"}` } }));
        messages.push({ role: 'assistant', content: null, tool_calls: calls, tokens: step.callTokens });
        const results = ids.map((id, k) => ({ role: 'tool', tool_call_id: id, content: `result of ${id}`, tokens: step.resultTokens[k] }));
        messages.push(...(step.reversed ? results.reverse() : results));
        if (step.instruction) messages.push({ role: 'developer', ...step.instruction });
      }
      if (t.reply) messages.push({ role: 'assistant', ...t.reply });
    }
    return { messages, pinned: block, clientSummary: s.clientSummary ?? null };
  });
}
