import { Writable } from 'node:stream';

/** recap's log lines, kept to tell why a compaction degraded. */
export class LineCapture extends Writable {
  private readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (this.lines.length > 200) this.lines.splice(0, this.lines.length - 200);
    cb();
  }
  lastDegradeReason(): string | null {
    for (const line of [...this.lines].reverse()) {
      try {
        const entry = JSON.parse(line) as { msg?: string; reason?: string };
        if (entry.msg?.startsWith('compaction degraded')) return entry.reason ?? null;
      } catch {
        // not a JSON line
      }
    }
    return null;
  }
}
