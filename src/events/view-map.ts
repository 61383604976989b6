import type { ItemKind } from '../compaction/items.js';
import type { MessageState, ViewRow } from '../store/event-log.js';

// What recap did to each message of a request, for its event (the dashboard's view map): per
// message its index, role, tokens and state (pinned, kept, cleared, summarized, dropped, or
// recalled: left out and given back by recap_recall), from
// the view recap chose; no text. Bounded: a summarized or dropped span is one row, and past
// MAX_ROWS the older rows of one state fold together (then only the newest are kept).

export const MAX_ROWS = 160;

export interface ViewMapInput {
  /** Leading block: its size, and the index of recap's own summary sent back in it (replaced in the view). */
  pinnedCount: number;
  summaryIndex: number | null;
  /** Tokens of every item of the request. */
  tokens: readonly number[];
  /** Kind of each item after the pinned block. */
  kinds: readonly ItemKind[];
  /** The view over the items after the pinned block. */
  covered: number;
  kept: readonly number[];
  cleared: ReadonlySet<number>;
  /** Items below this went into the view's summary; covered items from it on were dropped (window, degraded). */
  summarizedUpTo: number;
  /** Request indices of left-out items the model got back through recap_recall in this request's reply. */
  recalled?: ReadonlySet<number>;
}

const ROLES: Record<ItemKind, string> = { instruction: 'system', user: 'user', assistant: 'assistant', result: 'tool', other: 'other' };

function fold(rows: ViewRow[]): ViewRow[] {
  const out: ViewRow[] = [];
  for (const row of rows) {
    const last = out.at(-1);
    if (last && last[3] === row[3] && last[0] + last[1] === row[0]) {
      out[out.length - 1] = [last[0], last[1] + row[1], last[2] === row[2] ? last[2] : '*', last[3], last[4] + row[4]];
    } else out.push(row);
  }
  return out;
}

export function viewMap(input: ViewMapInput, maxRows = MAX_ROWS): ViewRow[] {
  const rows: ViewRow[] = [];
  for (let j = 0; j < input.pinnedCount; j++) rows.push([j, 1, 'system', j === input.summaryIndex ? 'summary' : 'pinned', input.tokens[j] ?? 0]);
  const kept = new Set(input.kept);
  let run: ViewRow | undefined;
  for (let i = 0; i < input.kinds.length; i++) {
    const gone: MessageState = i < input.summarizedUpTo ? 'summarized' : 'dropped';
    const left: MessageState = i < input.covered ? (kept.has(i) ? 'kept' : gone) : input.cleared.has(i) ? 'cleared' : 'kept';
    // Left out of the view, then given back to the model by a recall.
    const state: MessageState = left !== 'kept' && input.recalled?.has(input.pinnedCount + i) ? 'recalled' : left;
    const row: ViewRow = [input.pinnedCount + i, 1, ROLES[input.kinds[i]!], state, input.tokens[input.pinnedCount + i] ?? 0];
    // A summarized or dropped span is one row whatever its length.
    if (state === gone && run && run[3] === state && run[0] + run[1] === row[0]) {
      run[1]++;
      run[4] += row[4];
      if (run[2] !== row[2]) run[2] = '*';
      continue;
    }
    run = row;
    rows.push(row);
  }
  if (rows.length <= maxRows) return rows;
  // The newest half stays message by message; older rows of one state fold together; what still
  // does not fit is cut from the front (the map then starts at a later index).
  const newest = rows.slice(-Math.floor(maxRows / 2));
  const older = fold(rows.slice(0, rows.length - newest.length));
  return [...older, ...newest].slice(-maxRows);
}
