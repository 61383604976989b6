import { chunkTranscript, summarizeInChunks } from '../compaction/chunks.js';
import { type LedgerCounts, ledgerForSummarySteps, ledgerReserve } from '../compaction/ledger.js';
import { collectLedgerCandidates } from '../compaction/ledger-candidates.js';
import { buildSummarizerMessages, sharedPrefixInstruction } from '../compaction/prompt.js';
import { redact } from '../compaction/redact.js';
import { taskNote, taskNoteOf, withoutTaskNote, withTaskNote } from '../compaction/task-note.js';
import { buildTemplateSummary } from '../compaction/template.js';
import { templateWithLedgerSteps } from '../compaction/template-ledger.js';
import { transcriptEntries } from '../compaction/transcript.js';
import type { CompactionConfig } from '../config/config.js';
import type { ChatMessage } from '../messages/types.js';
import { createSlicer, runSliced, SLICE_MS } from '../slicing/slicer.js';
import { type PrefixRequest, type Summarizer, type SummarizerCall, SummarizerError, type SummarizerFailure, type SummarizerReply } from '../summarizer/client.js';

// Turns an evicted span into the next summary text, by the model's strategy. Only `summarize`
// can fail; the caller degrades on failure (rule 8).

export interface SummaryRequest {
  strategy: 'summarize' | 'template' | 'window';
  compaction: CompactionConfig;
  /** The summary the span is added to (carry-over), or null. */
  previous: string | null;
  evicted: readonly ChatMessage[];
  /** Tokens of the evicted messages as counted for the request: no need to count them again. */
  evictedTokens: number;
  /** The opening task when the span takes it in (it does not stay verbatim: rule 1): its index in `evicted`, its tokens. */
  openingTask?: { at: number; tokens: number };
  countText: (text: string) => number;
  summarizer: Summarizer;
  /** The summarizer upstream when the summarizer config names none. */
  defaultUpstream: string;
  authorization?: string;
  signal?: AbortSignal;
  /** Summarize on the conversation's own cached prefix (`summarizer.shared_prefix`): one call, on its model and upstream. */
  prefix?: PrefixSummary | undefined;
}

/** A summarizer call on the conversation's cached prefix, built for the instruction and limit (span-checkpoint.ts). */
export interface PrefixSummary {
  model: string;
  upstream: string;
  request(instruction: string, maxTokens: number): PrefixRequest;
}

/** What the summarizer calls used, split as providers bill it (prompt includes cached). */
export interface SummarizerUsage {
  prompt: number;
  cached: number;
  /** Written to the provider's cache (Anthropic; a call on the conversation's prefix). */
  written?: number;
  output: number;
}

export type SummaryResult =
  | { ok: true; text: string; summarizerTokens: number; calls: number; ledger?: LedgerCounts; usage?: SummarizerUsage }
  | { ok: false; reason: SummarizerFailure; calls: number; summarizerTokens: number; usage?: SummarizerUsage };

export async function makeSummary(req: SummaryRequest): Promise<SummaryResult> {
  if (req.strategy === 'window') return { ok: true, text: req.previous ?? '', summarizerTokens: 0, calls: 0 };
  // The note that the opening task is summarized: made now, or carried over from the previous summary.
  const note = req.openingTask === undefined ? taskNoteOf(req.previous) : taskNote(req.openingTask.tokens);
  const previous = req.previous === null ? null : withoutTaskNote(req.previous);
  const plain = { ...req, previous };
  if (req.strategy === 'template') {
    const cap = req.compaction.template_max_bytes;
    const maxBytes = note === null ? cap : Math.max(1, cap - byteLength(`${note}\n\n`));
    const input = { previous, evicted: req.evicted, maxBytes };
    if (!req.compaction.ledger) return { ok: true, text: withTaskNote(buildTemplateSummary(input), note), summarizerTokens: 0, calls: 0 };
    const candidates = await collectLedgerCandidates(req.evicted, previous, { taskAt: req.openingTask?.at });
    const { text, ...ledger } = await runSliced(templateWithLedgerSteps({ ...input, countText: req.countText, candidates }), createSlicer(SLICE_MS));
    return { ok: true, text: withTaskNote(text, note), summarizerTokens: 0, calls: 0, ledger };
  }
  const max = req.compaction.summary_max_tokens;
  const noteTokens = note === null ? 0 : req.countText(`${note}\n\n`);
  if (!req.compaction.ledger) {
    const made = await summarizeSpan(plain, max - noteTokens);
    return made.ok ? { ...made, text: withTaskNote(made.text, note) } : made;
  }
  // The summarizer is asked for a little less, so that the ledger fits within the same limit.
  const candidates = await collectLedgerCandidates(req.evicted, previous, { taskAt: req.openingTask?.at });
  const made = await summarizeSpan(plain, max - noteTokens - ledgerReserve(candidates, max, req.countText));
  if (!made.ok) return made;
  const noted = withTaskNote(made.text, note);
  const { text, ...ledger } = await runSliced(ledgerForSummarySteps({ ...plain, candidates, text: noted, summaryMaxTokens: max }), createSlicer(SLICE_MS));
  return { ...made, text, ledger };
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/**
 * One call on the conversation's own prefix: the prefix fit the model's window when it was
 * forwarded, so it needs no chunks. The span reaches the model as the conversation has it (the
 * model saw it all before), so the summary is what gets redacted: no secret is stored (rule 7).
 */
async function summarizeOnPrefix(req: SummaryRequest, prefix: PrefixSummary, maxTokens: number): Promise<SummaryResult> {
  const instruction = sharedPrefixInstruction({ maxTokens, promptOverride: req.compaction.prompt, openingTask: req.openingTask !== undefined });
  const usage: SummarizerUsage = { prompt: 0, cached: 0, written: 0, output: 0 };
  let tokens = 0;
  try {
    const reply = await req.summarizer({ ...callOf(req, prefix.model, prefix.upstream, [], maxTokens), prefix: prefix.request(instruction, maxTokens) });
    tokens = tally(req, usage, reply, instruction);
    return { ok: true, text: redact(reply.text), summarizerTokens: tokens, calls: 1, usage };
  } catch (err) {
    const reason = err instanceof SummarizerError ? err.reason : 'error';
    return { ok: false, reason, calls: 1, summarizerTokens: tokens, usage };
  }
}

function callOf(req: SummaryRequest, model: string, upstream: string, messages: SummarizerCall['messages'], maxTokens: number): SummarizerCall {
  const s = req.compaction.summarizer!;
  return { model, upstream, messages, maxTokens, tokenLimitField: s.token_limit_field, timeoutMs: s.timeout_ms, authorization: req.authorization, signal: req.signal };
}

/** Adds a reply's usage (what the upstream reported, else recap's count of `prompt`) to `usage`; the call's tokens. */
function tally(req: SummaryRequest, usage: SummarizerUsage, reply: SummarizerReply, prompt: string): number {
  const input = reply.promptTokens ?? req.countText(prompt);
  const output = reply.completionTokens ?? req.countText(reply.text);
  usage.prompt += input;
  usage.cached += reply.cachedTokens ?? 0;
  if (reply.writtenTokens) usage.written = (usage.written ?? 0) + reply.writtenTokens;
  usage.output += output;
  return input + output;
}

async function summarizeSpan(req: SummaryRequest, maxTokens: number): Promise<SummaryResult> {
  if (req.prefix) return summarizeOnPrefix(req, req.prefix, maxTokens);
  const s = req.compaction.summarizer!;
  // Room for the transcript in one call: the model's input limit minus instructions, previous summary and reply.
  const overhead = req.countText(
    buildSummarizerMessages({ previousSummary: req.previous, transcript: '', maxTokens, promptOverride: req.compaction.prompt })
      .map((m) => m.content)
      .join('\n'),
  );
  const room = Math.max(512, s.max_input_tokens - overhead - 2 * maxTokens);
  // Rendering and chunking megabytes of evicted text run in slices (slicer.ts).
  const pause = createSlicer(SLICE_MS);
  const entries = await transcriptEntries(req.evicted, { pause });
  // The transcript abbreviates messages, so it is no longer than they are: a span that fits needs
  // no chunking, and no second tokenization on the event loop.
  const chunks = req.evictedTokens <= room ? [entries.join('\n')] : await chunkTranscript(entries, room, req.countText, pause);
  let calls = 0;
  let tokens = 0;
  const usage: SummarizerUsage = { prompt: 0, cached: 0, output: 0 };
  try {
    const text = await summarizeInChunks(
      chunks,
      req.previous,
      async (messages) => {
        calls++;
        // The schema requires a model unless the summary is made on the shared prefix (not here).
        const reply = await req.summarizer(callOf(req, s.model!, s.upstream ?? req.defaultUpstream, messages, maxTokens));
        tokens += tally(req, usage, reply, messages.map((m) => m.content).join('\n'));
        return reply.text;
      },
      { maxTokens, promptOverride: req.compaction.prompt, openingTask: req.openingTask !== undefined },
    );
    if (!text) return { ok: false, reason: 'empty', calls, summarizerTokens: tokens, usage };
    return { ok: true, text, summarizerTokens: tokens, calls, usage };
  } catch (err) {
    const reason = err instanceof SummarizerError ? err.reason : 'error';
    return { ok: false, reason, calls, summarizerTokens: tokens, usage };
  }
}
