import type { ModelConfig } from '../config/config.js';
import { RECALL_TOOL_NAME } from './tool.js';

// Whether a request may be offered `recap_recall` at all (before recap knows whether its view
// leaves anything out). Route-neutral: each route passes the few fields it reads from its body.

export interface RecallRequestFields {
  toolChoice: unknown;
  /** Chat's `n`; the Responses API has none. */
  n?: unknown;
  /** The client's own tools (any shape): a client tool of the same name keeps recap's out. */
  tools: unknown;
  /** Chat's legacy `functions`: recap does not mix a tool into a functions request. */
  functions?: unknown;
}

export type NoOffer = 'off' | 'tool_choice' | 'n' | 'name_taken' | 'functions' | 'tools_shape';

function namedFunction(choice: unknown): string | null {
  if (choice === null || typeof choice !== 'object') return null;
  const c = choice as { type?: unknown; name?: unknown; function?: { name?: unknown } };
  if (c.type !== 'function') return null;
  const name = c.function?.name ?? c.name;
  return typeof name === 'string' ? name : '';
}

function toolName(tool: unknown): unknown {
  if (tool === null || typeof tool !== 'object') return undefined;
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  return t.function?.name ?? t.name;
}

/** Why a request is not offered recall, or null when it may be. */
export function recallRefusal(model: ModelConfig | undefined, req: RecallRequestFields): NoOffer | null {
  if (!model?.recall.enabled || model.compaction.strategy === 'off' || model.compaction.mode === 'audit') return 'off';
  const choice = req.toolChoice;
  if (choice === 'none') return 'tool_choice';
  // A forced other function, or a list of allowed tools recap's is not in: the model could not call it.
  const named = namedFunction(choice);
  if (named !== null && named !== RECALL_TOOL_NAME) return 'tool_choice';
  if (choice !== null && typeof choice === 'object' && (choice as { type?: unknown }).type === 'allowed_tools') return 'tool_choice';
  // Several choices would each want their own continuation.
  if (typeof req.n === 'number' && req.n > 1) return 'n';
  if (req.functions !== undefined && req.functions !== null) return 'functions';
  if (req.tools !== undefined && req.tools !== null && !Array.isArray(req.tools)) return 'tools_shape';
  if (Array.isArray(req.tools) && req.tools.some((t) => toolName(t) === RECALL_TOOL_NAME)) return 'name_taken';
  return null;
}
