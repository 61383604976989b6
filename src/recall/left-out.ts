import type { NeutralItem } from '../compaction/items.js';
import { contentText } from '../compaction/text.js';
import { eachCall } from '../compaction/tool-calls.js';
import type { ChatMessage } from '../messages/types.js';

// What a request's forwarded view left out, taken from the request itself (rule 13): the full
// content of each cleared result and the items a summary (or a degraded drop) covers. Nothing is
// stored; a recall reads only these. Each passage has a handle that stays the same from turn to
// turn: a tool result's call id (what its stub prints), else the item's place in the request
// (history only grows at its end).

export interface Passage {
  handle: string;
  /** What the passage is, for the model: "tool read_file result (cleared)", "user message (summarized)". */
  label: string;
  text: string;
  /** Index of its item in the request (the view map marks what a recall gave back). */
  index?: number;
}

/** The shape of a view over the items after the pinned block (compaction/layout.ts BaseView). */
export interface ViewShape {
  covered: number;
  kept: readonly number[];
  cleared: ReadonlySet<number>;
}

export interface LeftOutInput<T> {
  /** The items after the pinned block, as the client sent them. */
  rest: readonly T[];
  /** Index of rest[0] in the request. */
  offset: number;
  describe(item: T): NeutralItem;
  asChat(item: T): ChatMessage | null;
}

/** The text of an item as a recall returns it: its content, then each call it makes. */
export function itemText(m: ChatMessage): string {
  const parts: string[] = [];
  const text = contentText(m.content);
  if (text !== '') parts.push(text);
  for (const call of eachCall(m)) parts.push(`${call.name}(${call.arguments})`);
  return parts.join('\n');
}

function labelOf(n: NeutralItem, toolName: string | null, role: string): string {
  if (n.kind === 'result') return `tool ${toolName ?? 'unknown'} result`;
  return `${role} message`;
}

/** Every passage the view `shape` leaves out, in the request's order. */
export function leftOutPassages<T>(input: LeftOutInput<T>, shape: ViewShape): Passage[] {
  const kept = new Set(shape.kept);
  const neutral = input.rest.map((item) => input.describe(item));
  const toolNames = new Map(neutral.flatMap((n) => n.calls.map((c) => [c.id, c.name] as const)));
  const out: Passage[] = [];
  input.rest.forEach((item, i) => {
    const summarized = i < shape.covered && !kept.has(i);
    const cleared = i >= shape.covered && shape.cleared.has(i);
    if (!summarized && !cleared) return;
    const m = input.asChat(item);
    if (!m) return;
    const text = itemText(m);
    if (text === '') return;
    const n = neutral[i]!;
    const toolName = n.resultOf === null ? null : (toolNames.get(n.resultOf) ?? null);
    out.push({
      handle: n.kind === 'result' && n.resultOf !== null ? n.resultOf : `item-${input.offset + i}`,
      label: `${labelOf(n, toolName, m.role)} (${cleared ? 'cleared' : 'summarized'})`,
      text,
      index: input.offset + i,
    });
  });
  return out;
}
