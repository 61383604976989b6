// The fake summarizer: a deterministic, extractive summary of the transcript a summarizer call
// sends, laid out in the sections recap asks for. Sentences and identifiers are copied verbatim,
// so tests can check that facts (numbers, paths, ids) survive compaction and carry-over. The lossy
// mode plays a summarizer that paraphrases identifiers away ("the ticket", "a file"), as real ones
// do after a few generations: every id, path, URL and number is replaced by an ellipsis.
import { SHARED_PREFIX_MARKER } from '../compaction/prompt.js';
import { getTokenizer } from '../tokens/encodings.js';
import { chatViewOf } from './fake-responses-view.js';
import { textOf } from './fake-text.js';

export const SUMMARY_SECTIONS = ['Goal', 'Current state', 'Decisions', 'Facts and identifiers', 'Open questions', 'Next steps'] as const;

const DEFAULT_SUMMARY_MAX_TOKENS = 1024;
const MAX_IDENTIFIERS = 40;

const IDENTIFIER = new RegExp(
  [
    String.raw`https?://[^\s)>\]"']+`,
    String.raw`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
    String.raw`(?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+`,
    String.raw`\b[\w-]+\.(?:ts|js|mjs|json|ya?ml|md|py|go|rs|txt|csv|log|sql|toml|sh)\b`,
    // Tokens mixing letters and digits: ORD-4411, user_42, v1.2, 7f3a9c21.
    String.raw`\b(?=[\w.-]*\d)(?=[\w.-]*[A-Za-z])[\w.-]*\w`,
    String.raw`\b\d+(?:[.,:]\d+)*\b`,
  ].join('|'),
  'gi',
);

export interface FakeSummaryOptions {
  /** Drop every identifier from the summary. */
  lossy?: boolean;
}

const DROPPED = '…';

export function extractiveSummary(request: any, options: FakeSummaryOptions = {}): string {
  const messages: any[] = Array.isArray(request?.messages) ? request.messages : [];
  const transcript = messages
    .filter((m) => m?.role === 'user')
    .map((m) => material(textOf(m.content)))
    .join('\n');
  const sentences = sentencesOf(transcript);
  const identifiers = identifiersOf(transcript);
  const used = new Set<string>();
  const pick = (candidates: string[], limit: number): string[] => {
    const picked = candidates.filter((s) => !used.has(s)).slice(0, limit);
    picked.forEach((s) => used.add(s));
    return picked;
  };

  // Sections are picked in order of how specific their test is, so the catch-all ones (latest
  // state, then facts) only get sentences nothing more telling claimed; rendering keeps the usual order.
  const goal = pick(
    sentences.filter((s) => /\b(goal|want|need|help|please|trying to|task)\b/i.test(s)),
    1,
  );
  const body = {} as Record<(typeof SUMMARY_SECTIONS)[number], string[]>;
  body.Goal = goal.length > 0 ? goal : pick(sentences, 1);
  body.Decisions = pick(
    sentences.filter((s) => /\b(decided|decide|agreed|chose|choose|will use|going with|settled)\b/i.test(s)),
    4,
  );
  body['Open questions'] = pick(
    sentences.filter((s) => s.endsWith('?')),
    4,
  );
  body['Next steps'] = pick(
    sentences.filter((s) => /\b(next|todo|then|should|need to|plan to|will)\b/i.test(s)),
    4,
  );
  body['Current state'] = pick(sentences.filter((s) => !s.endsWith('?') && !used.has(s)).slice(-2), 2);
  body['Facts and identifiers'] = [
    ...(identifiers.length > 0 && !options.lossy ? [`Identifiers: ${identifiers.join(', ')}`] : []),
    ...pick(
      sentences.filter((s) => identifiersOf(s).length > 0),
      4,
    ),
  ];
  const text = SUMMARY_SECTIONS.map((section) => {
    const lines = (body[section].length > 0 ? body[section] : ['none']).map((line) => (options.lossy ? withoutIdentifiers(line) : line));
    return `## ${section}\n${lines.map((line) => `- ${line}`).join('\n')}`;
  }).join('\n\n');
  return truncateToTokens(text, maxSummaryTokens(request)).trimEnd();
}

/** The items of a chat, Responses or Anthropic request. */
function itemsOf(request: any): any[] {
  if (Array.isArray(request?.messages)) return request.messages;
  return Array.isArray(request?.input) ? chatViewOf(request).messages : [];
}

/** A summarizer call on the conversation's own cached prefix (summarizer.shared_prefix): its last item is recap's instruction. */
export function isSharedPrefixCall(request: any): boolean {
  const last = itemsOf(request).at(-1);
  return last?.role === 'user' && textOf(last.content).startsWith(SHARED_PREFIX_MARKER);
}

/** Text of an item: its text parts, and the content of Anthropic's tool results. */
function itemText(item: any): string {
  const blocks = Array.isArray(item?.content) ? item.content : [];
  const results = blocks.filter((b: any) => b?.type === 'tool_result').map((b: any) => (typeof b.content === 'string' ? b.content : textOf(b.content)));
  return [textOf(item?.content), ...results].filter((t) => t !== '').join('\n');
}

/** Such a call's summary: the extractive summary of every item above the instruction but the leading instructions, read as one transcript. */
export function sharedPrefixSummary(request: any, options: FakeSummaryOptions & { maxTokens: number }): string {
  const items = itemsOf(request).slice(0, -1);
  const transcript = items
    .filter((m) => m?.role !== 'system' && m?.role !== 'developer')
    .map(itemText)
    .join('\n');
  return extractiveSummary({ messages: [{ role: 'user', content: transcript }], max_tokens: options.maxTokens }, options);
}

/** A summarizer call's summary: of its transcript, or (on the conversation's own prefix) of the conversation above the instruction. */
export function summaryOf(request: any, lossy: boolean | undefined): string {
  if (!isSharedPrefixCall(request)) return extractiveSummary(request, { lossy });
  const limit = request.max_completion_tokens ?? request.max_tokens ?? request.max_output_tokens;
  return sharedPrefixSummary(request, { lossy, maxTokens: typeof limit === 'number' ? limit : 1024 });
}

function maxSummaryTokens(request: any): number {
  const limit = request?.max_completion_tokens ?? request?.max_tokens;
  return typeof limit === 'number' && limit > 0 ? limit : DEFAULT_SUMMARY_MAX_TOKENS;
}

/** Like a real model stopping at max_tokens: the reply never holds more tokens than allowed. */
function truncateToTokens(text: string, maxTokens: number): string {
  const tokenizer = getTokenizer('o200k_base');
  if (tokenizer.count(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (tokenizer.count(text.slice(0, mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

/** What is inside recap's <previous_summary> and <transcript> blocks, when the input has them: not the scaffolding around. */
function material(text: string): string {
  const blocks = [...text.matchAll(/<(previous_summary|transcript)>\n([\s\S]*?)\n<\/\1>/g)].map((m) => m[2]!);
  return blocks.length > 0 ? blocks.join('\n') : text;
}

function withoutIdentifiers(line: string): string {
  return line.replace(IDENTIFIER, DROPPED);
}

function sentencesOf(text: string): string[] {
  const sentences = text
    .split('\n')
    // Headings (a previous summary's sections, recap's ledger) are structure, not sentences.
    .filter((line) => !/^\s*#/.test(line))
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((s) =>
      s
        .replace(/^\s*[-*]\s*/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    // Fragments, and a previous summary's identifier lists, are not sentences.
    .filter((s) => s.split(' ').length >= 3 && !s.startsWith('Identifiers: '))
    .map((s) => (s.length > 240 ? `${s.slice(0, 237)}...` : s));
  return [...new Set(sentences)];
}

function identifiersOf(text: string): string[] {
  const found = (text.match(IDENTIFIER) ?? []).map((token) => token.replace(/[.,:]+$/, '')).filter((token) => token.length > 1);
  return [...new Set(found)].slice(0, MAX_IDENTIFIERS);
}
