// What the client-library suites share: recap with a small compacting model and plain
// `gpt-test*`, and the chat requests as they reached the upstream.
import { SUMMARY_MARKER } from '../../src/compaction/summary-message.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './harness.js';

export type SentMessage = { role: string; content: string };
export type SentChat = { model: string; stream?: boolean; messages: SentMessage[]; tools?: any[] };

export function startCompatHarness(): Promise<Harness> {
  return startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel({ summary_max_tokens: 300 }, { context_window: 3000, max_output_tokens: 500 }), { match: 'gpt-test*' }],
  });
}

export function lastUpstreamRequest(h: Harness): { headers: Record<string, string | string[] | undefined>; body: SentChat } {
  const sent = h.fake.chatRequests().at(-1)!;
  return { headers: sent.headers, body: sent.json as SentChat };
}

/** The messages of every chat request the upstream got, in order. */
export function sentConversations(h: Harness): SentMessage[][] {
  return h.fake.chatRequests().map((r) => (r.json as SentChat).messages);
}

/** Whether recap put its summary (right after the one pinned system message) into this request. */
export function carriesSummary(messages: SentMessage[]): boolean {
  return messages[1]?.content.startsWith(SUMMARY_MARKER) ?? false;
}
