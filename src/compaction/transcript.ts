import type { ChatMessage } from '../messages/types.js';
import { noPause, type Pause } from '../slicing/slicer.js';
import { redact, redactPieces, redactSliced } from './redact.js';
import { contentText, headChars, tailChars } from './text.js';
import { type CallInfo, eachCall } from './tool-calls.js';

// The evicted messages as the summarizer reads them: one `ROLE: text` entry per message. Tool
// traffic is abbreviated because its bulk (file dumps, JSON) rarely matters for a summary and
// would crowd out the conversation. Secrets are redacted before anything is cut, so that a cut
// never leaves half a key that no pattern recognises. A message's further lines are indented, so
// that its text cannot start a line that passes for another speaker's entry ("\nSYSTEM: …").

export interface TranscriptBounds {
  /** Longest tool-call arguments shown, in characters. */
  toolArgsMaxChars: number;
  /** Longest tool result shown, in characters; the middle of a longer one is omitted. */
  toolResultMaxChars: number;
}

export const DEFAULT_TRANSCRIPT_BOUNDS: TranscriptBounds = { toolArgsMaxChars: 200, toolResultMaxChars: 1500 };

export interface TranscriptOptions {
  bounds?: TranscriptBounds;
  /**
   * Called between messages, tool calls and the pieces of a long text's redaction: an evicted
   * span of megabytes (a pasted log, thousands of tool calls) is rendered without holding the
   * event loop.
   */
  pause?: Pause;
}

/** One entry per message, in order: the units a long transcript is chunked by. */
export async function transcriptEntries(messages: readonly ChatMessage[], options: TranscriptOptions = {}): Promise<string[]> {
  const bounds = options.bounds ?? DEFAULT_TRANSCRIPT_BOUNDS;
  const pause = options.pause ?? noPause;
  const toolNames = new Map<string, string>();
  const entries: string[] = [];
  for (const m of messages) {
    let calls = 0;
    for (const call of eachCall(m)) {
      if (call.id !== null) toolNames.set(call.id, call.name);
      if (++calls % 1024 === 0) await pause();
    }
    entries.push(await renderMessage(m, calls > 0, toolNames, bounds, pause));
    await pause();
  }
  return entries;
}

export async function renderTranscript(messages: readonly ChatMessage[], options: TranscriptOptions = {}): Promise<string> {
  return (await transcriptEntries(messages, options)).join('\n');
}

/** `text` cut to about `maxChars`: its first and last parts around a note of what was left out. */
export function abbreviate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = headChars(text, Math.ceil(maxChars / 2));
  const tail = tailChars(text, Math.floor(maxChars / 2));
  return `${head}[… ${text.length - head.length - tail.length} chars omitted …]${tail}`;
}

async function renderMessage(m: ChatMessage, hasCalls: boolean, toolNames: ReadonlyMap<string, string>, bounds: TranscriptBounds, pause: Pause): Promise<string> {
  // Every string of the message that is shown is redacted, not only its text: a key pasted as a
  // `name`, used as a tool's name or sent as an odd role is as secret as one in the text.
  const role = redact(String(m.role)).toUpperCase();
  const isResult = m.role === 'tool' || m.role === 'function';
  // A `name` that is not a string (an object, say: JSON allows it) is not shown.
  const name = (isResult && typeof m.tool_call_id === 'string' && toolNames.get(m.tool_call_id)) || (typeof m.name === 'string' ? m.name : '');
  const label = name ? `${role} (${redact(name)})` : role;
  const shown = isResult ? await shownResult(contentText(m.content), bounds, pause) : await indentedText(contentText(m.content), pause);
  const lines: string[] = shown !== '' || !hasCalls ? [indentContinuation(`${label}: `) + shown] : [];
  for (const c of eachCall(m)) {
    lines.push(indentContinuation(`${role} → ${c.kind} ${redact(c.name)}(${truncateArgs(c, bounds)})`));
    await pause();
  }
  return lines.join('\n');
}

/** A tool result's text redacted, abbreviated and indented. */
async function shownResult(content: string, bounds: TranscriptBounds, pause: Pause): Promise<string> {
  return indentContinuationSliced(abbreviate(await redactSliced(content, pause), bounds.toolResultMaxChars), pause);
}

/**
 * Any other text redacted and indented, piece by piece as it was redacted: a pasted log of
 * megabytes is joined once, not redacted whole, then cut, indented and joined again. A piece's
 * line breaks are whole in it (redactPieces), so indenting each gives what indenting all gives.
 */
async function indentedText(content: string, pause: Pause): Promise<string> {
  const pieces = await redactPieces(content, pause);
  for (let i = 0; i < pieces.length; i++) {
    pieces[i] = await indentContinuationSliced(pieces[i]!, pause);
    const due = pause();
    if (due) await due;
  }
  return pieces.join('');
}

/** `line` with each of its further lines indented (a line break of any kind becomes `\n  `). */
export function indentContinuation(line: string): string {
  return line.replace(/\r\n?|[\n\u2028\u2029]/g, '\n  ');
}

const INDENT_PIECE_CHARS = 256 * 1024;

/** indentContinuation(line) in pieces cut just after a newline (so no `\r\n` is split), with pauses. */
async function indentContinuationSliced(line: string, pause: Pause): Promise<string> {
  if (line.length <= INDENT_PIECE_CHARS) return indentContinuation(line);
  const out: string[] = [];
  for (let start = 0; start < line.length; ) {
    const nl = line.indexOf('\n', start + INDENT_PIECE_CHARS);
    const end = nl === -1 ? line.length : nl + 1;
    out.push(indentContinuation(line.slice(start, end)));
    start = end;
    await pause();
  }
  return out.join('');
}

// Only the first toolArgsMaxChars of arguments are shown: redacting this much beyond them (so that
// a secret that starts in the shown part is still recognised whole) spares redacting megabytes.
const ARGS_REDACTION_MARGIN = 4096;

function truncateArgs(call: CallInfo, bounds: TranscriptBounds): string {
  const args = redact(headChars(call.arguments, bounds.toolArgsMaxChars + ARGS_REDACTION_MARGIN));
  return args.length <= bounds.toolArgsMaxChars ? args : `${headChars(args, bounds.toolArgsMaxChars)}…`;
}
