import type { ChatMessage } from '../messages/types.js';
import { redact } from './redact.js';
import { contentText, headChars } from './text.js';
import { callsOf } from './tool-calls.js';

// The `template` strategy (rig-memory's TemplateCompactor): a deterministic rollup instead of an
// LLM summary. Header, the previous rollup, then one line per evicted message; past `maxBytes`
// the oldest text goes first, so the most recent context survives. Redacted like the summarizer's
// input, because the rollup is stored just like a summary.

export const TEMPLATE_HEADER = '[Conversation summary so far]';
export const TRUNCATED_MARKER = '[…truncated…]';

export interface TemplateInput {
  /** The previous rollup (carry-over), or null. */
  previous: string | null;
  evicted: readonly ChatMessage[];
  /** Cap on the rollup in UTF-8 bytes (template_max_bytes); 0 means unbounded. Header and marker are always kept. */
  maxBytes: number;
  /** Longest line kept per evicted message, in characters. */
  lineMaxChars?: number;
}

export function buildTemplateSummary(input: TemplateInput): string {
  const previous = previousBody(input.previous);
  const lines = input.evicted.map((m) => messageLine(m, input.lineMaxChars ?? 200));
  const body = [previous.body, ...lines].filter((l) => l !== '').join('\n');

  const whole = body === '' ? TEMPLATE_HEADER : `${TEMPLATE_HEADER}\n${body}`;
  if (!previous.truncated && (input.maxBytes === 0 || byteLength(whole) <= input.maxBytes)) return whole;
  const prefix = `${TEMPLATE_HEADER}\n${TRUNCATED_MARKER}\n`;
  const room = input.maxBytes === 0 ? Infinity : input.maxBytes - byteLength(prefix);
  const tail = tailBytes(body, room);
  return tail === '' ? prefix.trimEnd() : prefix + tail;
}

/** The previous rollup without its header and marker, which are re-added on top. */
function previousBody(summary: string | null): { body: string; truncated: boolean } {
  let body = (summary ?? '').trim();
  if (body.startsWith(TEMPLATE_HEADER)) body = body.slice(TEMPLATE_HEADER.length).trimStart();
  const truncated = body.startsWith(TRUNCATED_MARKER);
  if (truncated) body = body.slice(TRUNCATED_MARKER.length).trimStart();
  return { body, truncated };
}

// Only the first maxChars of a line are kept: redacting this much beyond them (so that a secret
// that starts in the kept part is still recognised whole) spares redacting a multi-MB line.
const REDACTION_MARGIN = 4096;

/** The first line with text in it, trimmed; found without splitting megabytes into lines. */
function firstLineOf(text: string): string | undefined {
  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(start, end).trim();
    if (line !== '') return line;
    start = end + 1;
  }
  return undefined;
}

function messageLine(m: ChatMessage, maxChars: number): string {
  const firstLine = firstLineOf(contentText(m.content));
  const calls = callsOf(m).map((c) => c.name);
  const text = firstLine ?? (calls.length > 0 ? `→ tool_call ${calls.join(', ')}` : '');
  const line = redact(headChars(text, maxChars + REDACTION_MARGIN));
  return `${redact(String(m.role))}: ${line.length > maxChars ? `${headChars(line, maxChars)}…` : line}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The last at most `maxBytes` bytes of `text`, starting on a UTF-8 character boundary. */
function tailBytes(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  if (maxBytes <= 0) return '';
  let start = bytes.length - maxBytes;
  // Continuation bytes are 10xxxxxx; a character starts at the first byte that is not one.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return decoder.decode(bytes.subarray(start));
}
