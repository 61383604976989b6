import type { ModelConfig } from '../config/config.js';
import type { ParsedRequest, RecallOffer, SharedPrefixWire, WireFormat } from '../wire/format.js';

// What a summarizer call on the conversation's own cached prefix (`summarizer.shared_prefix`,
// docs/cost.md) is built from: the request as recap forwards it. The request in hand resends the
// history the previous one did, so the body recap forwards with the view on the same base is, up to
// the span being summarized, byte for byte what it forwarded last: what the provider has cached.
// It is the body the compacting handler sends (compacting-handler.ts): the client's own bytes when
// nothing is changed, else the view spliced in, with recap_recall when the view leaves something out.

export interface SharedPrefixSource {
  /** The conversation's model, as the client names it. */
  model: string;
  /** The body recap forwards with `view` in place of the request's items (null: the client's own bytes); `leavesOut`: the view carries recap_recall. */
  forwarded(view: readonly unknown[] | null, leavesOut: boolean): Buffer;
  wire: SharedPrefixWire;
  /** The format's path below the upstream's base URL. */
  path: string;
  /** Of the client's headers, those its API reads the body by. */
  headers: Readonly<Record<string, string>>;
}

/** Headers that say how an upstream reads the body (Anthropic's version and betas: a beta member of the body needs its header). */
const API_HEADERS = ['anthropic-version', 'anthropic-beta'];

export function apiHeadersOf(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of API_HEADERS) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

/** The source for a model that summarizes on its shared prefix, else undefined. */
export function sharedPrefixSource<T, P extends ParsedRequest>(
  format: WireFormat<T, P>,
  parsed: P,
  model: ModelConfig,
  recall: RecallOffer | undefined,
  headers: Readonly<Record<string, string>>,
): SharedPrefixSource | undefined {
  if (!model.compaction.summarizer?.shared_prefix) return undefined;
  const withRecall = recall !== undefined ? format.recall : undefined;
  return {
    model: parsed.body.model,
    // The engine hands back views of this request's own items: T[] under the neutral type.
    forwarded: (view, leavesOut) => (view === null ? parsed.raw : withRecall && leavesOut ? withRecall.body(parsed, view as T[]) : format.withView(parsed, view as T[])),
    wire: format.sharedPrefix,
    path: format.upstreamPath,
    headers,
  };
}
