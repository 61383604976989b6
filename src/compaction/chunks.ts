import type { ChatMessage } from '../messages/types.js';
import { buildSummarizerMessages } from './prompt.js';
import { type Pause, noPause } from '../slicing/slicer.js';
import { isBpeSafeCut, piecesForCounting } from './split.js';
import { headChars } from './text.js';

// An evicted span bigger than the summarizer model takes is summarized in chunks, each call
// carrying the result of the one before (docs/design.md rule 5), so the last result covers the whole span.

// A long entry is counted a piece at a time (split.ts cuts it where the counts add up), once,
// with a pause between pieces: tokenizing a pasted log of megabytes takes seconds.
const PIECE_CHARS = 1024;

interface Unit {
  text: string;
  tokens: number;
}

/**
 * Packs transcript entries, in order, into chunks of at most `maxTokensPerChunk` (the room the
 * summarizer call leaves for the transcript). An entry bigger than that is split into parts that
 * fit, at the cuts of split.ts (at character boundaries within a piece too big by itself).
 */
export async function chunkTranscript(entries: readonly string[], maxTokensPerChunk: number, countTokens: (text: string) => number, pause: Pause = noPause): Promise<string[]> {
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const entry of entries) {
    for (const part of await unitsOf(entry, maxTokensPerChunk, countTokens, pause)) {
      // +1: the newline that joins entries inside a chunk.
      const tokens = part.tokens + 1;
      if (current.length > 0 && currentTokens + tokens > maxTokensPerChunk) {
        chunks.push(current.join('\n'));
        current = [];
        currentTokens = 0;
      }
      current.push(part.text);
      currentTokens += tokens;
    }
    // Thousands of short entries (an agent's tool steps) add up to as much counting as one long one.
    await pause();
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  return chunks;
}

/** The entry as parts that fit a chunk: itself when it does, else runs of its pieces. */
async function unitsOf(entry: string, maxTokens: number, countTokens: (text: string) => number, pause: Pause): Promise<Unit[]> {
  if (entry.length <= PIECE_CHARS) return splitToFit(entry, maxTokens, countTokens);
  const units: Unit[] = [];
  let run: string[] = [];
  let runTokens = 0;
  const flush = () => {
    if (run.length > 0) units.push({ text: run.join(''), tokens: runTokens });
    run = [];
    runTokens = 0;
  };
  for (const piece of piecesForCounting(entry, PIECE_CHARS, isBpeSafeCut)) {
    for (const unit of splitToFit(piece, maxTokens, countTokens)) {
      if (runTokens + unit.tokens >= maxTokens) flush();
      run.push(unit.text);
      runTokens += unit.tokens;
    }
    await pause();
  }
  flush();
  return units;
}

function splitToFit(text: string, maxTokens: number, countTokens: (text: string) => number): Unit[] {
  const tokens = countTokens(text);
  if (tokens < maxTokens) return [{ text, tokens }];
  const head = headChars(text, Math.ceil(text.length / 2));
  // A single character cannot be split further; the summarizer gets it over the bound.
  if (head === '' || head === text) return [{ text, tokens }];
  return [...splitToFit(head, maxTokens, countTokens), ...splitToFit(text.slice(head.length), maxTokens, countTokens)];
}

export interface ChunkOptions {
  maxTokens: number;
  promptOverride?: string | undefined;
  /** The span starts with the opening task: the first chunk's call is told so. */
  openingTask?: boolean;
}

/**
 * Runs `call` once per chunk, threading each result into the next call as the previous summary.
 * An empty result stops the loop and returns '' so that validation reports the failure instead
 * of a later chunk silently dropping everything summarized before it.
 */
export async function summarizeInChunks(
  chunks: readonly string[],
  previousSummary: string | null,
  call: (messages: ChatMessage[]) => Promise<string>,
  options: ChunkOptions,
): Promise<string> {
  let summary = previousSummary;
  for (const [i, transcript] of chunks.entries()) {
    const openingTask = options.openingTask === true && i === 0;
    const result = (await call(buildSummarizerMessages({ previousSummary: summary, transcript, ...options, openingTask }))).trim();
    if (result === '') return '';
    summary = result;
  }
  return summary ?? '';
}
