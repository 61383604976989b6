import type { IncomingHttpHeaders } from 'node:http';
import type { ModelConfig } from '../config/config.js';
import { MAX_CONVERSATION_ID_BYTES } from '../conversation/identify.js';
import { RECALL_TOOL_MAX_TOKENS } from '../recall/tool.js';
import { type OutputLimits, resolveBudget } from '../tokens/budget.js';

// A request that provably needs neither compaction nor preparation is forwarded before recap
// counts it; the counting (for the x-recap-* headers, metrics and the cache) overlaps the
// upstream's work instead of delaying it.
//
// The proof: upper bounds of the prompt's tokens (uncalibrated), its messages' and its
// definitions' (tools, functions, response_format, which also lower the budget by their own
// tokens), stay below both lines of the budget that those definitions leave, even scaled by the
// most calibration may scale an estimate (2×). The route works the bounds out (chat/forward-bound.ts):
// exact for what this process counted before, bytes for the rest.

const MAX_CALIBRATION_FACTOR = 2;

/** Upper bounds of a request's uncalibrated prompt tokens; null when the route cannot bound them. */
export interface PromptBound {
  /** The messages (with the reply's priming), as the budget's share for them counts them. */
  messages: number;
  /** The tool, function and response_format definitions. */
  definitions: number;
}

export function canForwardFirst(
  body: OutputLimits,
  bound: () => PromptBound | null,
  model: ModelConfig | undefined,
  headers: IncomingHttpHeaders,
  conversationHeaders: readonly string[],
): boolean {
  if (!model || model.compaction.strategy === 'off') return true;
  // An oversized id is refused with a 400, which must happen before anything is forwarded.
  for (const name of conversationHeaders) {
    const id = headers[name];
    if (typeof id === 'string' && Buffer.byteLength(id) > MAX_CONVERSATION_ID_BYTES) return false;
  }
  const tokens = bound();
  if (tokens === null) return false;
  const calibration = (model.calibrate ?? model.encoding === 'estimate') ? MAX_CALIBRATION_FACTOR : 1;
  // recap_recall, when it may be injected, takes budget too.
  const recallTool = model.recall.enabled ? RECALL_TOOL_MAX_TOKENS : 0;
  const { compaction } = model;
  const budget = resolveBudget(model, body, calibration * (tokens.definitions + recallTool)).budget;
  return calibration * tokens.messages <= Math.min(compaction.trigger_ratio, compaction.prepare_ratio) * budget;
}
