import type { ChatMessage } from '../messages/types.js';

// Plain text out of a message's content, for the summarizer transcript and the template rollup.
// Non-text parts cannot be summarized from text, so they leave a placeholder saying what was there.

export function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      const p = (part ?? {}) as { type?: unknown; text?: unknown };
      if (p.type === 'text' && typeof p.text === 'string') return p.text;
      if (p.type === 'image_url') return '[image]';
      return `[${typeof p.type === 'string' ? p.type : 'unknown'}]`;
    })
    .join('\n');
}

// Cuts by UTF-16 index would split an astral character (emoji) into a lone surrogate, which
// JSON-encodes as garbage; these move the cut to the nearest whole character instead.

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The first at most `n` UTF-16 units of `text`, never ending inside a surrogate pair. */
export function headChars(text: string, n: number): string {
  if (n >= text.length) return text;
  const cut = n > 0 && isLowSurrogate(text.charCodeAt(n)) ? n - 1 : n;
  return text.slice(0, Math.max(0, cut));
}

/** The last at most `n` UTF-16 units of `text`, never starting inside a surrogate pair. */
export function tailChars(text: string, n: number): string {
  if (n >= text.length) return text;
  if (n <= 0) return '';
  const start = text.length - n;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}
