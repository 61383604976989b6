import { headChars } from '../compaction/text.js';
import type { EventRoute } from '../store/event-log.js';
import type { ViewRow } from '../store/event-log.js';
import type { ConversationKey } from '../store/store.js';

/** The conversation a request belongs to, for its event (events/recorder.ts). */
export interface EventTarget {
  key: ConversationKey;
  /** The id as the client sent it (at most 512 bytes), or null when recap derived it. */
  id: string | null;
  route: EventRoute;
  /** recap vouches for the tenant (a configured client, the shared anonymous one); else only the upstream judges it. */
  vouched: boolean;
}

/** "compacted: saves ~X, costs ~Y" (X over the calls expected before the next compaction), or why not. */
export interface CostDecisionLog {
  saves: number;
  costs: number;
  /** Calls the saving is counted over. */
  calls: number;
  /** `window`: compacted because the view would not fit, whatever it cost. */
  verdict: 'pays' | 'does_not_pay' | 'window';
}

/**
 * What one request leaves behind in its log line, metrics and event: a value the request path
 * returns and puts together from its steps' parts (observability/outcome.ts), never written to.
 */
export interface RequestLog {
  readonly startedAt: number;
  readonly route: string;
  readonly method: string;
  readonly status?: number;
  /** As the client named it, cut by clientField. */
  readonly model?: string;
  /** The model's config entry (`match`), a bounded metrics label. */
  readonly modelLabel?: string;
  readonly conversation?: string;
  readonly action?: string;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly budget?: number;
  /** Tool results shown as stubs in the forwarded (audit mode: projected) view. */
  readonly cleared?: number;
  /** Summarizer calls made for this request, and their tokens (in and out). */
  readonly summarizerCalls?: number;
  readonly summarizerTokens?: number;
  /** What the summarizer calls of this request cost (models with `pricing`). */
  readonly summarizerCost?: number;
  /** The upstream's usage: prompt tokens it read from its cache, and wrote to it. */
  readonly cachedTokens?: number;
  readonly cacheWriteTokens?: number;
  /** Models with `pricing`: what the request cost (summarizer included) and what it saved against sending everything (pricing/request-cost.ts). */
  readonly cost?: number;
  readonly costSaved?: number;
  /** Audit mode: what recap's view would have cost. */
  readonly projectedCost?: number;
  /** The cost model's figures for a compaction considered on this request (compaction/cost.ts). */
  readonly costDecision?: CostDecisionLog;
  /** recap_recall calls answered inside this request's reply. */
  readonly recalls?: number;
  /** x-recap-audit, on a model in audit mode. */
  readonly audit?: string;
  /** What a (projected) compaction made: a new summary, or cleared tool results only. */
  readonly compaction?: 'summary' | 'clearing';
  /** Audit mode: the prompt recap would have forwarded (x-recap-tokens-out). */
  readonly projectedTokensOut?: number;
  /** The request went upstream before it was counted, and why it could: below the lines (forward-first.ts), or on its conversation's last decision (reuse-first.ts). */
  readonly forwardedFirst?: 'below both lines' | 'below the trigger' | 'reused';
  readonly upstreamStatus?: number;
  readonly upstreamHeadersMs?: number;
  readonly summarizerMs?: number;
  readonly outcome?: string;
  readonly error?: string;
  /** Set once the request is known to belong to a conversation whose records are kept; never logged. */
  readonly target?: EventTarget;
  /** A pass-through route's bounded name (`embeddings`, `models`, … or `other`), for the overview's counts. */
  readonly routeName?: string;
  /** ms from the request's arrival until recap sent it upstream: recap's own part of its time. */
  readonly forwardedMs?: number;
  /** The event's view map, worked out only when the event is written (events/view-map.ts); never logged. */
  readonly viewMap?: () => { view: ViewRow[]; summary_tokens: number };
}

export function newRequestLog(method: string, route: string): RequestLog {
  return { startedAt: performance.now(), method, route };
}

// Values a client chose (a model name of 2 MiB, say) are cut before they reach a log line, so
// that one request cannot write megabytes of logs.
export const LOG_FIELD_MAX_CHARS = 200;

/** `value` as a log field: at most LOG_FIELD_MAX_CHARS characters, then a note of what was cut. */
export function clientField(value: string): string {
  if (value.length <= LOG_FIELD_MAX_CHARS) return value;
  const head = headChars(value, LOG_FIELD_MAX_CHARS);
  return `${head}…[${value.length - head.length} more chars]`;
}
