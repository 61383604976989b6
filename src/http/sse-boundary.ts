// Whether a relayed event stream stopped between two events (a blank line just ended one) or in
// the middle of one. Only at a boundary can recap add an event of its own that a client parses.

const TAIL = 4;

export interface SseBoundary {
  feed(chunk: Buffer): void;
  /** True before any byte, and whenever the bytes so far end with a blank line. */
  atBoundary(): boolean;
}

export function sseBoundary(): SseBoundary {
  let tail = '';
  return {
    feed(chunk) {
      tail = (tail + chunk.subarray(-TAIL).toString('latin1')).slice(-TAIL);
    },
    atBoundary: () => tail === '' || endsWithBlankLine(tail),
  };
}

/** Two line endings in a row at the end (SSE accepts CRLF, LF and CR). */
export function endsWithBlankLine(text: string): boolean {
  const last = text.endsWith('\r\n') ? 2 : text.endsWith('\n') || text.endsWith('\r') ? 1 : 0;
  if (last === 0) return false;
  const rest = text.slice(0, -last);
  return rest.endsWith('\n') || rest.endsWith('\r');
}
