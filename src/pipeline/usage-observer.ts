import type { IncomingHttpHeaders } from 'node:http';
import { createSseUsageSniffer, type UsageReport, usageReportFromJson } from '../tokens/usage.js';

// Reads the usage off a response as it passes to the client, for calibration and pricing. It only
// looks at the chunks; they go to the client untouched and unbuffered.

/** What watches a response's body go by for the usage the upstream reports. */
export interface ResponseObserver {
  onChunk(chunk: Buffer): void;
  /** The usage the upstream reported, once the body has passed. */
  usage(): UsageReport | undefined;
}

const MAX_JSON_BYTES = 4 * 1024 * 1024;

export function observeUsage(status: number, headers: IncomingHttpHeaders): ResponseObserver | undefined {
  if (status >= 300) return undefined;
  const type = String(headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    const sniffer = createSseUsageSniffer();
    return { onChunk: (chunk) => sniffer.feed(chunk), usage: () => sniffer.report };
  }
  if (type.includes('json')) {
    const chunks: Buffer[] = [];
    let size = 0;
    return {
      onChunk(chunk) {
        size += chunk.length;
        if (size <= MAX_JSON_BYTES) chunks.push(chunk);
      },
      usage: () => (size <= MAX_JSON_BYTES ? usageReportFromJson(Buffer.concat(chunks)) : undefined),
    };
  }
  return undefined;
}
