// The fake summarizer: a deterministic, extractive summary of the transcript a summarizer call
// sends, laid out in the sections recap asks for. Sentences and identifiers are copied verbatim,
// so tests can check that facts (numbers, paths, ids) survive compaction and carry-over.
import { textOf } from './fake-default-reply.js';

export const SUMMARY_SECTIONS = ['Goal', 'Current state', 'Decisions', 'Facts and identifiers', 'Open questions', 'Next steps'] as const;

const DEFAULT_SUMMARY_MAX_TOKENS = 1024;
const MAX_IDENTIFIERS = 40;

const IDENTIFIER = new RegExp(
  [
    String.raw`https?://[^\s)>\]"']+`,
    String.raw`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
    String.raw`(?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+`,
    String.raw`\b[\w-]+\.(?:ts|js|mjs|json|ya?ml|md|py|go|rs|txt|csv|log|sql|toml|sh)\b`,
    String.raw`\b[A-Za-z]+[-_#]?\d[\w.-]*`,
    String.raw`\b\d+(?:[.,:]\d+)*\b`,
  ].join('|'),
  'gi',
);

export function extractiveSummary(request: any): string {
  const messages: any[] = Array.isArray(request?.messages) ? request.messages : [];
  const transcript = messages
    .filter((m) => m?.role === 'user')
    .map((m) => textOf(m.content))
    .join('\n');
  const sentences = sentencesOf(transcript);
  const identifiers = identifiersOf(transcript);
  const used = new Set<string>();
  const pick = (candidates: string[], limit: number): string[] => {
    const picked = candidates.filter((s) => !used.has(s)).slice(0, limit);
    picked.forEach((s) => used.add(s));
    return picked;
  };

  const goal = pick(sentences.filter((s) => /\b(goal|want|need|help|please|trying to|task)\b/i.test(s)), 1);
  const body: Record<(typeof SUMMARY_SECTIONS)[number], string[]> = {
    Goal: goal.length > 0 ? goal : pick(sentences, 1),
    'Current state': pick(sentences.filter((s) => !s.endsWith('?')).slice(-2), 2),
    Decisions: pick(sentences.filter((s) => /\b(decided|decide|agreed|chose|choose|will use|going with|settled)\b/i.test(s)), 4),
    'Facts and identifiers': [
      ...(identifiers.length > 0 ? [`Identifiers: ${identifiers.join(', ')}`] : []),
      ...pick(sentences.filter((s) => identifiersOf(s).length > 0), 4),
    ],
    'Open questions': pick(sentences.filter((s) => s.endsWith('?')), 4),
    'Next steps': pick(sentences.filter((s) => /\b(next|todo|then|should|need to|plan to|will)\b/i.test(s)), 4),
  };
  const text = SUMMARY_SECTIONS.map((section) => {
    const lines = body[section].length > 0 ? body[section] : ['none'];
    return `## ${section}\n${lines.map((line) => `- ${line}`).join('\n')}`;
  }).join('\n\n');
  return text.slice(0, maxSummaryChars(request)).trimEnd();
}

function maxSummaryChars(request: any): number {
  const limit = request?.max_completion_tokens ?? request?.max_tokens;
  return (typeof limit === 'number' && limit > 0 ? limit : DEFAULT_SUMMARY_MAX_TOKENS) * 4;
}

function sentencesOf(text: string): string[] {
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/^\s*(?:[-*]|#+)\s*/, '').replace(/\s+/g, ' ').trim())
    // A previous summary's own headings and placeholders are structure, not content.
    .filter((s) => s.length >= 3 && s !== 'none' && !(SUMMARY_SECTIONS as readonly string[]).includes(s))
    .map((s) => (s.length > 240 ? `${s.slice(0, 237)}...` : s));
  return [...new Set(sentences)];
}

function identifiersOf(text: string): string[] {
  const found = (text.match(IDENTIFIER) ?? [])
    .map((token) => token.replace(/[.,:]+$/, ''))
    .filter((token) => token.length > 1);
  return [...new Set(found)].slice(0, MAX_IDENTIFIERS);
}
