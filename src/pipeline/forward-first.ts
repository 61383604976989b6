import type { ModelConfig } from '../config/config.js';
import { MAX_CONVERSATION_ID_BYTES, type NamedConversation } from '../conversation/identify.js';
import { RECALL_TOOL_MAX_TOKENS } from '../recall/tool.js';
import { type OutputLimits, resolveBudget } from '../tokens/budget.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { ParsedRequest, PromptBound, WireFormat } from '../wire/format.js';
import { lowestTriggerRatio } from './cost-plan.js';

// A request that provably goes upstream as the client sent it is forwarded before recap counts
// it; the counting (for the x-recap-* headers, metrics and the cache) and any planning overlap
// the upstream's work instead of delaying it. Below the trigger line the view is always the
// client's own (the least compacted candidate that fits wins, and none is less compacted): past
// the prepare line the plan still runs after forwarding, to read the record and consider
// preparing the next checkpoint (rule 10); below both lines nothing is read, chosen or prepared.
//
// The proof: upper bounds of the prompt's tokens (uncalibrated), its messages' and its
// definitions' (tools, functions, response_format, which also lower the budget by their own
// tokens), stay below the line in the budget that those definitions leave, even scaled by the
// most calibration may scale an estimate (2×). The format works the bounds out (wire/chat/forward-bound.ts):
// exact for what this process counted before, bytes for the rest.

const MAX_CALIBRATION_FACTOR = 2;

/** Below both lines: nothing to plan. Below the trigger: forwarded as sent, planned after. */
export type ForwardFirst = 'below both lines' | 'below the trigger';

/** Whether (and why) the request may go upstream before it is counted; null when it may not. */
export function canForwardFirst(
  body: OutputLimits,
  bound: (model: ModelConfig) => PromptBound | null,
  model: ModelConfig | undefined,
  named: NamedConversation | undefined,
): ForwardFirst | null {
  if (!model || model.compaction.strategy === 'off') return 'below both lines';
  // An oversized id is refused with a 400, which must happen before anything is forwarded.
  if (named && Buffer.byteLength(named.raw) > MAX_CONVERSATION_ID_BYTES) return null;
  const tokens = bound(model);
  if (tokens === null) return null;
  const calibration = (model.calibrate ?? model.encoding === 'estimate') ? MAX_CALIBRATION_FACTOR : 1;
  // recap_recall, when it may be injected, takes budget too.
  const recallTool = model.recall.enabled ? RECALL_TOOL_MAX_TOKENS : 0;
  const { compaction } = model;
  const budget = resolveBudget(model, body, calibration * (tokens.definitions + recallTool)).budget;
  const most = calibration * tokens.messages;
  // With prices the cost model may choose a lower trigger (cost-plan.ts): the lowest it can is the line.
  const trigger = lowestTriggerRatio(model);
  if (most > trigger * budget) return null;
  return most <= Math.min(trigger, compaction.prepare_ratio) * budget ? 'below both lines' : 'below the trigger';
}

/** The bounds of a request's prompt (the format's), worked out at most once per encoding: forward-first and reuse-first both ask. */
export function promptBoundOnce<T, P extends ParsedRequest>(
  format: WireFormat<T, P>,
  parsed: P,
  counterFor: (encoding: ModelConfig['encoding']) => TokenCounter,
): (model: ModelConfig) => PromptBound | null {
  let known: { encoding: ModelConfig['encoding']; bound: PromptBound | null } | undefined;
  return (model) => {
    if (known?.encoding !== model.encoding) known = { encoding: model.encoding, bound: format.promptBound(parsed, counterFor(model.encoding)) };
    return known.bound;
  };
}

/** Whether a request read by `format` may go upstream before it is counted: one it will not compact always may. */
export function forwardFirstOf<T, P extends ParsedRequest>(
  format: WireFormat<T, P>,
  parsed: P,
  model: ModelConfig | undefined,
  bound: (model: ModelConfig) => PromptBound | null,
  named: NamedConversation | undefined,
): ForwardFirst | null {
  if (model && model.compaction.strategy !== 'off' && format.compactable(parsed) === null) return 'below both lines';
  return canForwardFirst(parsed.body, bound, model, named);
}
