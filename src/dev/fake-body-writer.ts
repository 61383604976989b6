// Writes a response body while keeping a copy of every byte sent, breaks the connection after a
// scripted number of bytes so clients can be tested against truncated bodies, and goes silent
// (with optional keep-alive pings) so they can be tested against stalled ones.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ScriptedStall } from './fake-types.js';

export const SSE_PING = ': ping\n\n';

export class BodyWriter {
  private readonly sent: Buffer[] = [];
  private written = 0;
  /** The fake itself cut the connection; not an early close by the client. */
  brokenOnPurpose = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly resetAfterBytes: number | undefined,
  ) {}

  /** False once nothing more can be written: the client left or the script cut the connection. */
  get open(): boolean {
    return !this.brokenOnPurpose && !this.res.destroyed;
  }

  sentBytes(): Buffer {
    return Buffer.concat(this.sent);
  }

  /** Writes one piece of the body with its own res.write; returns whether writing may go on. */
  write(data: string | Buffer): boolean {
    if (!this.open) return false;
    const piece = Buffer.from(data);
    const limit = this.resetAfterBytes;
    if (limit !== undefined && this.written + piece.length >= limit) {
      this.breakAfter(piece.subarray(0, Math.max(0, limit - this.written)));
      return false;
    }
    this.record(piece);
    this.res.write(piece);
    return true;
  }

  /** Sends the headers, then nothing but pings for `stall.ms`; returns early if the connection goes. */
  async stall(stall: ScriptedStall): Promise<void> {
    this.res.flushHeaders();
    const gone = new AbortController();
    this.res.once('close', () => gone.abort());
    const until = Date.now() + stall.ms;
    try {
      for (let left = stall.ms; left > 0 && this.open; left = until - Date.now()) {
        await sleep(Math.min(left, stall.pingEveryMs ?? left), undefined, { signal: gone.signal });
        if (stall.pingEveryMs !== undefined && until - Date.now() > 0) this.write(SSE_PING);
      }
    } catch {
      // the connection closed during the silence
    }
  }

  end(data?: string | Buffer): void {
    if (data !== undefined && !this.write(data)) return;
    if (this.open) this.res.end();
  }

  private record(piece: Buffer): void {
    this.sent.push(piece);
    this.written += piece.length;
  }

  private breakAfter(lastPiece: Buffer): void {
    this.brokenOnPurpose = true;
    this.record(lastPiece);
    if (lastPiece.length > 0) this.res.write(lastPiece);
    else this.res.flushHeaders();
    const socket = this.res.socket;
    // end() first so the bytes already written reach the client before the socket goes away.
    socket?.end(() => socket.destroy());
  }
}
