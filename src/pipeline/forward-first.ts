import type { IncomingHttpHeaders } from 'node:http';
import type { ModelConfig } from '../config/config.js';
import { MAX_CONVERSATION_ID_BYTES } from '../conversation/identify.js';
import type { ChatRequest } from '../messages/types.js';
import { RECALL_TOOL_MAX_TOKENS } from '../recall/tool.js';
import { resolveBudget } from '../tokens/budget.js';

// A request that provably needs neither compaction nor preparation is forwarded before recap
// counts it; the counting (for the x-recap-* headers, metrics and the cache) overlaps the
// upstream's work instead of delaying it.
//
// The proof: every token covers at least one byte of text, and the JSON around each message and
// tool definition is longer than the tokens OpenAI's framing adds, so a text-only request never
// has more prompt tokens than its body has bytes. Tool definitions also lower the budget by their
// own tokens, hence twice the bytes when there are some; calibration may scale estimates up to 2×.
// Images, audio and files cost more tokens than bytes, so such requests are always counted first.

const MAX_CALIBRATION_FACTOR = 2;

function textOnly(body: ChatRequest): boolean {
  for (const m of body.messages) {
    if (Array.isArray(m.content) && m.content.some((p) => (p as { type?: unknown }).type !== 'text')) return false;
  }
  return true;
}

export function canForwardFirst(
  body: ChatRequest,
  rawBytes: number,
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
  if (!textOnly(body)) return false;
  const hasDefinitions = body.tools !== undefined || body.functions !== undefined || body.response_format !== undefined;
  const calibration = (model.calibrate ?? model.encoding === 'estimate') ? MAX_CALIBRATION_FACTOR : 1;
  const bound = rawBytes * calibration * (hasDefinitions ? 2 : 1);
  const { compaction } = model;
  // recap_recall, when it may be injected, takes budget too (as calibrated).
  const recallTool = model.recall.enabled ? calibration * RECALL_TOOL_MAX_TOKENS : 0;
  return bound <= Math.min(compaction.trigger_ratio, compaction.prepare_ratio) * resolveBudget(model, body, recallTool).budget;
}
