import { fitTokens } from './fit.js';
import type { Passage } from './left-out.js';
import { searchPassages } from './search.js';
import { RECALL_TOOL_NAME } from './tool.js';

// recap's answer to one `recap_recall` call: the tool result text the model gets back. An exact
// handle returns that passage whole (as far as the room allows); otherwise the best matching
// windows of the left-out passages, each headed by its handle, within `maxTokens`. Every answer is
// a tool result, bad arguments and misses included: the model reads what went wrong and carries on.

export const MAX_ARGUMENT_CHARS = 4096;
export const MAX_QUERY_CHARS = 1000;

export type RecallOutcome = 'handle' | 'passages' | 'nothing' | 'bad_arguments' | 'no_room';

export interface RecallAnswer {
  text: string;
  outcome: RecallOutcome;
}

export interface AnswerOptions {
  /** Tokens the result text may take. */
  maxTokens: number;
  count(text: string): number;
}

const NOTE_TOKENS = 24;

type Parsed = { query: string; id: string | null } | { problem: string };

const USAGE = `call it with {"query": "text to find"} and optionally "id" (the id a stub shows)`;

export function parseRecallArguments(raw: unknown): Parsed {
  if (typeof raw !== 'string') return { problem: `the arguments must be a JSON object: ${USAGE}` };
  if (raw.length > MAX_ARGUMENT_CHARS) return { problem: `the arguments are too long (${raw.length} characters, at most ${MAX_ARGUMENT_CHARS}): ${USAGE}` };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { problem: `the arguments are not valid JSON: ${USAGE}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: `the arguments must be a JSON object: ${USAGE}` };
  const { query, id } = value as { query?: unknown; id?: unknown };
  if (query !== undefined && typeof query !== 'string') return { problem: `"query" must be a string: ${USAGE}` };
  if (id !== undefined && id !== null && typeof id !== 'string') return { problem: `"id" must be a string: ${USAGE}` };
  const q = (query ?? '').trim();
  const handle = typeof id === 'string' && id.trim() !== '' ? id.trim() : null;
  if (q === '' && handle === null) return { problem: `"query" is empty: ${USAGE}` };
  if (q.length > MAX_QUERY_CHARS) return { problem: `"query" is too long (at most ${MAX_QUERY_CHARS} characters): ask for a path, an id or a short phrase` };
  return { query: q, id: handle };
}

function header(p: Passage): string {
  return `[id ${p.handle} · ${p.label}]`;
}

/** A passage whole, or its head when the room is short (said so). */
function wholePassage(p: Passage, opts: AnswerOptions): string {
  const head = `${RECALL_TOOL_NAME}: ${header(p)}\n`;
  const room = opts.maxTokens - opts.count(head);
  const full = opts.count(p.text);
  if (full <= room) return head + p.text;
  const note = `\n[… cut here: ${full} tokens in all, more than this reply has room for; ask with a query to get other parts]`;
  return head + fitTokens(p.text, room - opts.count(note), opts.count) + note;
}

function matching(passages: readonly Passage[], query: string, opts: AnswerOptions, prefix: string): RecallAnswer {
  const hits = searchPassages(passages, query);
  if (hits.length === 0) return { outcome: 'nothing', text: `${prefix}${RECALL_TOOL_NAME}: nothing earlier in this conversation matches "${query}".` };
  let text = `${prefix}${RECALL_TOOL_NAME}: earlier content matching "${query}" (best matches first):`;
  let used = opts.count(text);
  let shown = 0;
  // Room kept for the closing note, and for counts of pieces that do not quite add up once joined.
  const room = opts.maxTokens - NOTE_TOKENS;
  for (const hit of hits) {
    const part = `\n\n${header(hit.passage)}${hit.whole ? '' : ' (part)'}\n${hit.text}`;
    const tokens = opts.count(part);
    if (used + tokens > room) {
      // The best match always shows, cut to the room if it must be.
      if (shown === 0) text += fitTokens(part, room - used, opts.count);
      break;
    }
    text += part;
    used += tokens;
    shown++;
  }
  const more = hits.length - Math.max(shown, 1);
  if (more > 0) text += `\n\n[${more} more matching parts not shown: ask with a narrower query or an id]`;
  return { outcome: 'passages', text };
}

export function answerRecall(rawArguments: unknown, passages: readonly Passage[], opts: AnswerOptions): RecallAnswer {
  const parsed = parseRecallArguments(rawArguments);
  if ('problem' in parsed) return { outcome: 'bad_arguments', text: `${RECALL_TOOL_NAME}: ${parsed.problem}.` };
  if (opts.maxTokens < 32) return { outcome: 'no_room', text: `${RECALL_TOOL_NAME}: this request has no room left for recalled content; answer from what you have.` };
  if (parsed.id !== null) {
    const exact = passages.find((p) => p.handle === parsed.id);
    if (exact) return { outcome: 'handle', text: wholePassage(exact, opts) };
    if (parsed.query === '') return { outcome: 'nothing', text: `${RECALL_TOOL_NAME}: no earlier content has id "${parsed.id}".` };
    return matching(passages, parsed.query, opts, `[no earlier content has id "${parsed.id}"; searched for the query instead]\n`);
  }
  return matching(passages, parsed.query, opts, '');
}
