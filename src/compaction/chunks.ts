import type { ChatMessage } from '../chat/types.js';
import { buildSummarizerMessages } from './prompt.js';
import { headChars } from './text.js';

// An evicted span bigger than the summarizer model takes is summarized in chunks, each call
// carrying the result of the one before (DESIGN rule 5), so the last result covers the whole span.

/**
 * Packs transcript entries, in order, into chunks of at most `maxTokensPerChunk` (the room the
 * summarizer call leaves for the transcript). An entry bigger than that is split at character
 * boundaries into parts that fit.
 */
export function chunkTranscript(
  entries: readonly string[],
  maxTokensPerChunk: number,
  countTokens: (text: string) => number,
): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const part of entries.flatMap((e) => splitToFit(e, maxTokensPerChunk, countTokens))) {
    // +1: the newline that joins entries inside a chunk.
    const tokens = countTokens(part) + 1;
    if (current.length > 0 && currentTokens + tokens > maxTokensPerChunk) {
      chunks.push(current.join('\n'));
      current = [];
      currentTokens = 0;
    }
    current.push(part);
    currentTokens += tokens;
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  return chunks;
}

function splitToFit(text: string, maxTokens: number, countTokens: (text: string) => number): string[] {
  if (countTokens(text) < maxTokens) return [text];
  const head = headChars(text, Math.ceil(text.length / 2));
  // A single character cannot be split further; the summarizer gets it over the bound.
  if (head === '' || head === text) return [text];
  return [...splitToFit(head, maxTokens, countTokens), ...splitToFit(text.slice(head.length), maxTokens, countTokens)];
}

export interface ChunkOptions {
  maxTokens: number;
  promptOverride?: string | undefined;
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
  for (const transcript of chunks) {
    const result = (await call(buildSummarizerMessages({ previousSummary: summary, transcript, ...options }))).trim();
    if (result === '') return '';
    summary = result;
  }
  return summary ?? '';
}
