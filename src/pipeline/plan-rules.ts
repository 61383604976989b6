import type { PlanRules } from '../compaction/plan.js';
import type { CompactionConfig } from '../config/config.js';

/** A model's compaction config as the planner reads it. */
export function planRules(c: CompactionConfig): PlanRules {
  const clearing = c.clear_tool_results;
  // Clearing is the cheap first stage of the strategies that keep a record of what was evicted.
  const enabled = clearing.enabled ?? (c.strategy === 'summarize' || c.strategy === 'template');
  return {
    trigger_ratio: c.trigger_ratio,
    target_ratio: c.target_ratio,
    prepare_ratio: c.prepare_ratio,
    summary_max_tokens: c.summary_max_tokens,
    keepInstructions: c.keep_instructions,
    taskMaxShare: c.task_max_share,
    clearing: enabled ? { keepLastSteps: clearing.keep_last_steps, minTokens: clearing.min_tokens } : null,
  };
}
