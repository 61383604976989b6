import { identifiersIn } from '../compaction/identifiers.js';
import { redact } from '../compaction/redact.js';
import { contentText } from '../compaction/text.js';
import { callsOf } from '../compaction/tool-calls.js';
import type { ChatMessage } from '../messages/types.js';
import { allot } from './allot.js';
import { type Probe, STATE_PROBES } from './probe-types.js';
import { isStopword, sentencesOf, wordsOf } from './sentences.js';

// Probe questions about what compaction evicted, built deterministically from the evicted span:
// its identifiers (asked by their beginning), facts (a sentence with a value, asked by its
// distinctive words), decisions, and the last state before the kept part. Each carries the strings
// a right answer contains. Every question starts with "Earlier in this conversation" and quotes
// one cue, which a model (and the fake upstream, src/dev/fake-probe.ts) uses to find the passage.
// A probe is only made when its cue leads to one answer in the whole conversation, only about what
// the kept messages do not say again (that is not lost), and never about a redacted secret:
// recap is right not to recall those.

export type { Probe, ProbeKind } from './probe-types.js';
export { PROBE_KINDS } from './probe-types.js';

const MIN_ID_LENGTH = 5;
const CUE_WORDS = 3;
const DECISION = /\b(?:decided|agreed|chose|settled on|going with|opted for|will use|we'll use|let's use|approved)\b/i;

export interface ProbeInput {
  /** The messages compaction evicted, oldest first. */
  evicted: readonly ChatMessage[];
  /** Everything else the model still sees verbatim: the pinned messages and the kept part. */
  kept: readonly ChatMessage[];
  maxProbes: number;
}

export function buildProbes({ evicted, kept, maxProbes }: ProbeInput): Probe[] {
  const texts = evicted.map(messageText);
  const keptText = kept.map(messageText).join('\n');
  const corpus = `${texts.join('\n')}\n${keptText}`;
  const lower = corpus.toLowerCase();
  const sentences = sentencesOf(corpus).map((s) => s.toLowerCase());
  const keptSentences = sentencesOf(keptText).map((s) => s.toLowerCase());
  const frequency = wordFrequency(corpus);
  const stillSeen = (p: Probe) => p.expected.some((e) => keptText.toLowerCase().includes(e.toLowerCase())) || keptSentences.some((s) => cueIn(p, s));

  const identifiers = texts.flatMap((text, message) => identifiersIn(text).flatMap((id) => identifierProbe(id, message, lower)));
  const facts: Probe[] = [];
  const decisions: Probe[] = [];
  texts.forEach((text, message) => {
    for (const sentence of sentencesOf(text)) {
      const probe = DECISION.test(sentence) ? decisionProbe(sentence, message, sentences, frequency) : factProbe(sentence, message, sentences, frequency, 'fact');
      if (probe) (probe.kind === 'decision' ? decisions : facts).push(probe);
    }
  });
  const state = lastState(texts, sentences, frequency).filter((p) => !stillSeen(p));
  const asState = new Set(state.map((p) => `${p.message}\0${p.expected[0]}`));
  return allot(maxProbes, {
    identifier: unique(identifiers.filter((p) => !stillSeen(p))),
    fact: unique(facts.filter((p) => !stillSeen(p) && !asState.has(`${p.message}\0${p.expected[0]}`))),
    decision: unique(decisions.filter((p) => !stillSeen(p))),
    state,
  });
}

/** Whether a (lowercased) sentence holds every word of the probe's cue. */
function cueIn(p: Probe, sentence: string): boolean {
  const cue = /"([^"]+)"/.exec(p.question)?.[1]?.toLowerCase().split(' ') ?? [];
  return cue.length > 0 && cue.every((w) => sentence.includes(w));
}

/** Text, tool arguments included, with secrets redacted as recap redacts them. */
function messageText(m: ChatMessage): string {
  return redact([contentText(m.content), ...callsOf(m).map((c) => c.arguments)].join('\n'));
}

/** "an identifier beginning with …": its first half, made longer until nothing else in the conversation begins so. */
function identifierProbe(id: string, message: number, corpus: string): Probe[] {
  if (id.length < MIN_ID_LENGTH || /[\s"]/.test(id) || id.includes('[REDACTED')) return [];
  const target = id.toLowerCase();
  // At least a third stays hidden, so that the rest cannot be guessed from the beginning (".log").
  const hidden = Math.max(2, Math.ceil(id.length / 3));
  for (let shown = Math.max(3, Math.ceil(id.length / 2)); id.length - shown >= hidden; shown++) {
    const prefix = target.slice(0, shown);
    if (occurrencesContinueAs(corpus, prefix, target)) {
      const cue = id.slice(0, shown);
      return [
        {
          kind: 'identifier',
          question: `Earlier in this conversation an identifier beginning with "${cue}" came up. What was it, exactly? Reply with the exact value.`,
          expected: [id],
          message,
        },
      ];
    }
  }
  return [];
}

function occurrencesContinueAs(corpus: string, prefix: string, whole: string): boolean {
  for (let at = corpus.indexOf(prefix); at !== -1; at = corpus.indexOf(prefix, at + 1)) {
    if (!corpus.startsWith(whole, at)) return false;
  }
  return true;
}

function factProbe(sentence: string, message: number, all: readonly string[], frequency: ReadonlyMap<string, number>, kind: 'fact' | 'state'): Probe | null {
  const value = identifiersIn(sentence).find((v) => !v.includes('[REDACTED'));
  if (!value) return null;
  const cue = cueOf(sentence, [value], frequency);
  if (!cue || !leadsOnlyTo(cue, [value], all)) return null;
  const question =
    kind === 'fact'
      ? `Earlier in this conversation a message mentioned "${cue.join(' ')}". What exactly did it say? Quote any names and figures exactly.`
      : `Earlier in this conversation, what was the latest update about "${cue.join(' ')}"? Quote any names and figures exactly.`;
  return { kind, question, expected: [value], message };
}

/** The decided thing: the first identifier or content word after the decision phrase. */
function decisionProbe(sentence: string, message: number, all: readonly string[], frequency: ReadonlyMap<string, number>): Probe | null {
  const at = DECISION.exec(sentence)!;
  const after = sentence.slice(at.index + at[0].length);
  const decided = identifiersIn(after).find((v) => !v.includes('[REDACTED')) ?? wordsOf(after).find((w) => !isStopword(w));
  if (!decided) return null;
  const cue = cueOf(sentence, [decided, at[0]], frequency);
  if (!cue || !leadsOnlyTo(cue, [decided], all)) return null;
  return {
    kind: 'decision',
    question: `Earlier in this conversation a decision was made in a message that mentioned "${cue.join(' ')}". What was decided?`,
    expected: [decided],
    message,
  };
}

/** The last facts of the evicted span: what a continuation needs to know about where things stood. */
function lastState(texts: readonly string[], all: readonly string[], frequency: ReadonlyMap<string, number>): Probe[] {
  const found: Probe[] = [];
  for (let message = texts.length - 1; message >= 0 && found.length < STATE_PROBES; message--) {
    for (const sentence of sentencesOf(texts[message]!).reverse()) {
      const probe = factProbe(sentence, message, all, frequency, 'state');
      if (probe && found.length < STATE_PROBES) found.push(probe);
    }
  }
  return found;
}

/** The sentence's rarest content words in the conversation (longer first among equals), in sentence order. */
function cueOf(sentence: string, exclude: readonly string[], frequency: ReadonlyMap<string, number>): string[] | null {
  const excluded = exclude.map((e) => e.toLowerCase());
  const candidates = [...new Set(wordsOf(sentence).map((w) => w.toLowerCase()))].filter(
    (w) => w.length >= 4 && !isStopword(w) && !excluded.some((e) => e.includes(w) || w.includes(e)),
  );
  if (candidates.length < 2) return null;
  const rarest = [...candidates].sort((a, b) => (frequency.get(a) ?? 0) - (frequency.get(b) ?? 0) || b.length - a.length).slice(0, CUE_WORDS);
  return candidates.filter((w) => rarest.includes(w));
}

/** Every sentence of the conversation that holds all the cue words also holds the answer. */
function leadsOnlyTo(cue: readonly string[], expected: readonly string[], all: readonly string[]): boolean {
  const answers = expected.map((e) => e.toLowerCase());
  const matching = all.filter((s) => cue.every((w) => s.includes(w)));
  return matching.length > 0 && matching.every((s) => answers.every((a) => s.includes(a)));
}

function wordFrequency(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of wordsOf(text)) counts.set(w.toLowerCase(), (counts.get(w.toLowerCase()) ?? 0) + 1);
  return counts;
}

function unique(probes: readonly Probe[]): Probe[] {
  const seen = new Set<string>();
  return probes.filter((p) => !seen.has(p.question) && seen.add(p.question));
}
