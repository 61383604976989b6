import { fitAround } from './fit.js';
import type { Passage } from './left-out.js';
import { matchAt, searchPassages } from './search.js';
import { RECALL_TOOL_NAME } from './tool.js';

// recap's answer to one `recap_recall` call: the tool result text the model gets back. An exact
// handle returns that passage whole (as far as the room allows, cut around the query's match when
// it has one); otherwise the best matching parts of the left-out passages, each headed by its
// handle, within `maxTokens`, the best one cut around its match when it alone is over the room.
// Every answer is a tool result, bad arguments and misses included: the model reads what went
// wrong and carries on. The outcome says what the model got: `passages` only when one was shown.

export const MAX_ARGUMENT_CHARS = 4096;
export const MAX_QUERY_CHARS = 1000;

export type RecallOutcome = 'handle' | 'passages' | 'nothing' | 'bad_arguments' | 'no_room';

export interface RecallAnswer {
  text: string;
  outcome: RecallOutcome;
  /** Request indices of the passages the answer shows (whole or in part). */
  shown?: number[];
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

const indexOf = (p: Passage): number[] => (p.index === undefined ? [] : [p.index]);

function header(p: Passage): string {
  return `[id ${p.handle} · ${p.label}]`;
}

/** The least room (tokens) for a cut part to say anything: below it, the answer says there is no room. */
const MIN_PART_TOKENS = 16;

/** `text` cut to `maxTokens` around `at` (its head when `at` is -1), with marks where it was cut. */
function cutAround(text: string, at: number, maxTokens: number, count: (text: string) => number): string {
  const fitted = fitAround(text, Math.max(0, at), maxTokens - 2, count);
  const before = fitted.from > 0 ? '…' : '';
  const after = fitted.from + fitted.text.length < text.length ? '…' : '';
  return `${before}${fitted.text}${after}`;
}

/** A passage whole, or the part of it around the query's match (else its head) when the room is short (said so). */
function wholePassage(p: Passage, query: string, opts: AnswerOptions): RecallAnswer {
  const head = `${RECALL_TOOL_NAME}: ${header(p)}\n`;
  const room = opts.maxTokens - opts.count(head);
  const full = opts.count(p.text);
  if (full <= room) return { outcome: 'handle', text: head + p.text, shown: indexOf(p) };
  const note = `\n[… cut here: ${full} tokens in all, more than this reply has room for; ask with a query to get other parts]`;
  const bodyRoom = room - opts.count(note);
  if (bodyRoom < MIN_PART_TOKENS) return noRoom();
  return { outcome: 'handle', text: head + cutAround(p.text, query === '' ? -1 : matchAt(p.text, query), bodyRoom, opts.count) + note, shown: indexOf(p) };
}

function noRoom(): RecallAnswer {
  return { outcome: 'no_room', text: `${RECALL_TOOL_NAME}: this request has no room left for recalled content; answer from what you have.` };
}

function matching(passages: readonly Passage[], query: string, opts: AnswerOptions, prefix: string): RecallAnswer {
  const hits = searchPassages(passages, query);
  if (hits.length === 0) return { outcome: 'nothing', text: `${prefix}${RECALL_TOOL_NAME}: nothing earlier in this conversation matches "${query}".` };
  let text = `${prefix}${RECALL_TOOL_NAME}: earlier content matching "${query}" (best matches first):`;
  let used = opts.count(text);
  let shown = 0;
  const indices: number[] = [];
  // Room kept for the closing note, and for counts of pieces that do not quite add up once joined.
  const room = opts.maxTokens - NOTE_TOKENS;
  for (const hit of hits) {
    const head = `\n\n${header(hit.passage)}${hit.whole ? '' : ' (part)'}\n`;
    const part = head + hit.text;
    const tokens = opts.count(part);
    if (used + tokens <= room) {
      text += part;
      used += tokens;
      shown++;
      indices.push(...indexOf(hit.passage));
      continue;
    }
    // The best match always shows, cut around its match to the room, if the room says anything.
    const bodyRoom = room - used - opts.count(head);
    if (shown === 0 && bodyRoom >= MIN_PART_TOKENS) {
      text += head + cutAround(hit.text, hit.at, bodyRoom, opts.count);
      shown++;
      indices.push(...indexOf(hit.passage));
    }
    break;
  }
  if (shown === 0)
    return {
      outcome: 'no_room',
      text: `${prefix}${RECALL_TOOL_NAME}: ${hits.length} earlier parts match "${query}", but this request has no room left to show them; answer from what you have.`,
    };
  const more = hits.length - shown;
  if (more > 0) text += `\n\n[${more} more matching parts not shown: ask with a narrower query or an id]`;
  return { outcome: 'passages', text, shown: indices };
}

export function answerRecall(rawArguments: unknown, passages: readonly Passage[], opts: AnswerOptions): RecallAnswer {
  const parsed = parseRecallArguments(rawArguments);
  if ('problem' in parsed) return { outcome: 'bad_arguments', text: `${RECALL_TOOL_NAME}: ${parsed.problem}.` };
  if (opts.maxTokens < 32) return noRoom();
  if (parsed.id !== null) {
    const exact = passages.find((p) => p.handle === parsed.id);
    if (exact) return wholePassage(exact, parsed.query, opts);
    if (parsed.query === '') return { outcome: 'nothing', text: `${RECALL_TOOL_NAME}: no earlier content has id "${parsed.id}".` };
    return matching(passages, parsed.query, opts, `[no earlier content has id "${parsed.id}"; searched for the query instead]\n`);
  }
  return matching(passages, parsed.query, opts, '');
}
