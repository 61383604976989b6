import { recallHint } from './recall-hint.js';
import { STEP_EVERY, type Steps } from '../slicing/slicer.js';
import type { Layout } from './layout.js';
import { stepUnits } from './units.js';

// Rule 11: old tool results are the bulk of an agent's context, and clearing them costs no LLM
// call. A result is clearable once it belongs to a step older than the newest `keepLastSteps`
// steps and is at least `minTokens` long; its content is replaced by a short stub that names the
// tool, the call and the size (the adapter writes it), the same bytes on every later turn.

export interface ClearingRules {
  keepLastSteps: number;
  minTokens: number;
}

// What one layout's clearable results are, per rules and start: a request asks it of the same
// layout several times (its own plan, then the background look's two), each a pass over the history.
const worked = new WeakMap<Layout, Map<string, readonly number[]>>();

/** Clearable results at or after `from`, oldest first (relative item indices). */
export function* clearableResults(l: Layout, rules: ClearingRules | null, from: number): Steps<readonly number[]> {
  if (!rules) return [];
  const key = `${rules.keepLastSteps}.${rules.minTokens}.${from}`;
  let known = worked.get(l);
  const hit = known?.get(key);
  if (hit) return hit;
  const out = yield* clearableSteps(l, rules, from);
  if (!known) {
    known = new Map();
    worked.set(l, known);
  }
  known.set(key, out);
  return out;
}

function* clearableSteps(l: Layout, rules: ClearingRules, from: number): Steps<number[]> {
  const steps = stepUnits(l.seg);
  // The newest step is always kept verbatim (rule 1), whatever the config says.
  const keep = Math.max(1, rules.keepLastSteps);
  if (steps.length <= keep) return [];
  const protectedFrom = l.seg.units[steps[steps.length - keep]!]!.start;
  const out: number[] = [];
  for (const u of steps) {
    const unit = l.seg.units[u]!;
    if (unit.start >= protectedFrom) break;
    for (let i = Math.max(unit.start, from); i < unit.end; i++) {
      if (l.seg.kinds[i] === 'result' && l.tokens[i]! >= rules.minTokens && l.stubTokens(i) < l.tokens[i]!) out.push(i);
      if (i % STEP_EVERY === 0) yield;
    }
  }
  return out;
}

// The size a stub states is the result's own (about four characters a token of its text), never a
// count: a calibrated count moves with every reply, and a stub whose text moved would change the
// prompt prefix from that stub on, on every turn, and miss the provider's cache from there.
const CHARS_PER_TOKEN = 4;

/**
 * The text that replaces a cleared result (`text`, its text): the same bytes on every turn for the
 * same result, so the prompt prefix stays as it was; it says what was there and how to get it back
 * (with `recall`, the request offers recap_recall: one more sentence says so).
 */
export function clearedStubText(toolName: string | null, callId: string | null, text: string, recall = false): string {
  const tokens = Math.max(1, Math.ceil(text.length / CHARS_PER_TOKEN));
  const call = callId ? `, call ${callId}` : '';
  const hint = recall ? ` ${recallHint(callId)}` : '';
  return `[recap: tool result cleared to save context — tool ${toolName ?? 'unknown'}${call}, ${tokens} tokens. Call the tool again if you need it.${hint}]`;
}
