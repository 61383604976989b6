import net from 'node:net';

// HTTP/1.1 written byte by byte over a plain TCP socket: the only way to send what well-behaved
// clients refuse to (lying Content-Length, both Content-Length and Transfer-Encoding, trickled
// headers, a body that never ends) and to see exactly what recap answers and when it hangs up.

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  /** The whole responses recap sent (its answers here always carry Content-Length). */
  responses: RawResponse[];
  /** Milliseconds from connecting to recap closing the connection; null if it was still open at `waitMs`. */
  closedAfterMs: number | null;
  /** Bytes the client managed to write before the connection closed. */
  bytesSent: number;
  /** Milliseconds from connecting to the first byte of recap's answer; null if none. */
  firstByteAfterMs: number | null;
}

export interface RawOptions {
  /** Pause between two parts (at least one timer tick). */
  gapMs?: number;
  /** After the last part: half-close (`end`), keep repeating it (`repeat`), or just wait. */
  then?: 'end' | 'repeat' | 'wait';
  /**
   * Give up (and report the connection as open) after this long. The default is far beyond any
   * timeout the tests configure: recap's own hang-up comes first however loaded the machine, so
   * a test asserts that recap closed the connection, not within how many milliseconds.
   */
  waitMs?: number;
  /** Stop (connection still open) once this many whole responses arrived. */
  responses?: number;
}

export function rawExchange(port: number, parts: (string | Buffer)[], opts: RawOptions = {}): Promise<RawExchange> {
  const { gapMs = 0, then = 'wait', waitMs = 20_000, responses } = opts;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    const received: Buffer[] = [];
    let firstByteAfterMs: number | null = null;
    let bytesSent = 0;
    let done = false;
    const finish = (closedAfterMs: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      // latin1: one character per byte, so Content-Length can be counted in characters.
      const text = Buffer.concat(received).toString('latin1');
      resolve({ responses: parseResponses(text), closedAfterMs, bytesSent, firstByteAfterMs });
    };
    const timer = setTimeout(() => finish(null), waitMs);
    socket.on('data', (d: Buffer) => {
      firstByteAfterMs ??= Date.now() - started;
      received.push(d);
      if (responses !== undefined && parseResponses(Buffer.concat(received).toString('latin1')).length >= responses) finish(null);
    });
    // A reset while the client is still writing is one way for the server to hang up.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(Date.now() - started));
    const write = (part: string | Buffer) => {
      if (socket.destroyed) return false;
      bytesSent += Buffer.byteLength(part);
      socket.write(part);
      return true;
    };
    socket.on('connect', async () => {
      for (let i = 0; ; i++) {
        const part = then === 'repeat' && i >= parts.length ? parts[parts.length - 1]! : parts[i];
        if (part === undefined || !write(part)) break;
        await new Promise((r) => setTimeout(r, gapMs));
      }
      if (then === 'end' && !socket.destroyed) socket.end();
    });
  });
}

/** The whole responses in recap's output; each must carry Content-Length (recap's own answers do). */
function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) break;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    if (rest.length < bodyStart + length) break; // still arriving
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(bodyStart, bodyStart + length) });
    rest = rest.slice(bodyStart + length);
  }
  return out;
}

/** A request head for recap's chat route; `extra` lines are written as given (CRLF-separated). */
export function chatHead(extra: string[]): string {
  return ['POST /v1/chat/completions HTTP/1.1', 'Host: recap.test', 'Content-Type: application/json', 'Authorization: Bearer sk-raw', ...extra].join('\r\n') + '\r\n\r\n';
}
