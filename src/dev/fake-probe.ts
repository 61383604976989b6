// The fake model answering a recall probe (`recap eval`) honestly from the prompt it was sent: a
// question that starts with "Earlier in this conversation" and quotes a cue ("SUP-44", "refund
// limit per order") is answered with the passages of the prompt (summary included, the question
// excluded) that contain every word of the cue, or with "I don't know" when none does. It never
// knows more than it was given, so what it recalls is what recap's view kept.
import { textOf } from './fake-text.js';

const PROBE = /^\s*Earlier in this conversation\b/i;
const CUE = /"([^"]+)"/;
const MAX_PASSAGES = 3;
const PASSAGE_MAX_CHARS = 320;

/** The cue of a probe question, or null when the text is not one. */
export function probeCue(question: string): string | null {
  if (!PROBE.test(question)) return null;
  return CUE.exec(question)?.[1]?.trim() || null;
}

/** The answer to a probe whose cue is `cue`, from the messages before the question. */
export function answerProbe(messages: readonly any[], cue: string): string {
  const words = wordsOf(cue);
  const found = passagesWith(messages, words);
  if (found.length === 0) return `I don't know: nothing I was given mentions "${cue}".`;
  return `From what I can see: ${found
    .slice(-MAX_PASSAGES)
    .map((p) => around(p, words[0]!))
    .join(' / ')}`;
}

/** Whether some passage of the messages holds every word of the cue: the fake can answer from them. */
export function hasCue(messages: readonly any[], cue: string): boolean {
  return passagesWith(messages, wordsOf(cue)).length > 0;
}

function wordsOf(cue: string): string[] {
  return cue.toLowerCase().split(/\s+/).filter(Boolean);
}

function passagesWith(messages: readonly any[], words: readonly string[]): string[] {
  return messages
    .flatMap((m) => passagesOf(messageText(m)))
    .filter((p) => {
      const lower = p.toLowerCase();
      return words.every((w) => lower.includes(w));
    });
}

function messageText(m: any): string {
  const calls: any[] = Array.isArray(m?.tool_calls) ? m.tool_calls : [];
  // Arguments that are not a string (an object a client sent as is) are not read: String() can throw on them.
  return [textOf(m?.content), ...calls.map((c) => (typeof c?.function?.arguments === 'string' ? c.function.arguments : ''))].join('\n');
}

/** Lines, cut into sentences. */
function passagesOf(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((p) => p.trim())
    .filter(Boolean);
}

/** A long passage (a log line, a JSON blob) shown around the cue, as a reader would quote it. */
function around(passage: string, word: string): string {
  if (passage.length <= PASSAGE_MAX_CHARS) return passage;
  const at = Math.max(0, passage.toLowerCase().indexOf(word) - PASSAGE_MAX_CHARS / 4);
  return `…${passage.slice(at, at + PASSAGE_MAX_CHARS)}…`;
}
