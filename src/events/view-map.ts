import type { ItemKind } from '../compaction/items.js';
import type { MessageState, ViewRow } from '../store/event-log.js';

// What recap did to each message of a request, for its event (the dashboard's view map): per
// message its index, role, tokens and state (pinned, kept, cleared, summarized, dropped, or
// recalled: left out and given back by recap_recall), from
// the view recap chose; no text. Bounded: a summarized or dropped span is one row, and past
// MAX_ROWS the older rows of one state fold together (then only the newest are kept).
// It runs for every request: one pass writes a byte of state per message and counts the rows, and
// only the rows that go out are built (view-map.test.ts holds the row-per-message definition it must equal).

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

/** A message's state is its index in STATES. */
const STATES: readonly MessageState[] = ['pinned', 'summary', 'kept', 'cleared', 'summarized', 'dropped', 'recalled'];
const [PINNED, SUMMARY, KEPT, CLEARED, SUMMARIZED, DROPPED, RECALLED] = [0, 1, 2, 3, 4, 5, 6] as const;

interface Messages {
  input: ViewMapInput;
  /** The state of each message of the request, pinned block first. */
  states: Uint8Array;
}

// No lookup per message: the summarized, dropped and uncovered spans are filled in, then the kept,
// cleared and recalled sets are walked once each (a lookup per message in them cost more than all the rest).
function statesOf(input: ViewMapInput): Uint8Array {
  const { pinnedCount: p, kinds } = input;
  const states = new Uint8Array(p + kinds.length);
  for (let j = 0; j < p; j++) states[j] = j === input.summaryIndex ? SUMMARY : PINNED;
  // How many items lie below a bound.
  const below = (bound: number) => (bound > 0 ? Math.min(kinds.length, Math.ceil(bound)) : 0);
  const covered = below(input.covered);
  const summarized = Math.min(covered, below(input.summarizedUpTo));
  states
    .fill(SUMMARIZED, p, p + summarized)
    .fill(DROPPED, p + summarized, p + covered)
    .fill(KEPT, p + covered);
  const isItem = (i: number) => Number.isInteger(i) && i >= 0 && i < kinds.length;
  for (const i of input.kept) if (isItem(i) && i < covered) states[p + i] = KEPT;
  for (const i of input.cleared) if (isItem(i) && i >= covered) states[p + i] = CLEARED;
  // Left out of the view, then given back to the model by a recall.
  for (const index of input.recalled ?? []) if (isItem(index - p) && states[index] !== KEPT) states[index] = RECALLED;
  return states;
}

/** Whether message `k` opens a row: a summarized or dropped span is one row whatever its length (no pinned message is either). */
function opensRow({ states }: Messages, k: number): boolean {
  const state = states[k];
  return state !== states[k - 1] || (state !== SUMMARIZED && state !== DROPPED);
}

function roleOf({ input }: Messages, k: number): string {
  return k < input.pinnedCount ? 'system' : ROLES[input.kinds[k - input.pinnedCount]!];
}

/** The rows from message `from` (one that opens a row) to the last. */
function rowsFrom(m: Messages, from: number): ViewRow[] {
  const rows: ViewRow[] = [];
  for (let k = from; k < m.states.length; k++) {
    const role = roleOf(m, k);
    const tokens = m.input.tokens[k] ?? 0;
    const run = rows.at(-1);
    if (run && !opensRow(m, k)) {
      run[1]++;
      run[4] += tokens;
      if (run[2] !== role) run[2] = '*';
    } else rows.push([k, 1, role, STATES[m.states[k]!]!, tokens]);
  }
  return rows;
}

/** The last `count` rows before message `end` once rows of one state are folded together: runs of messages of one state. */
function foldedBefore(m: Messages, end: number, count: number): ViewRow[] {
  const rows: ViewRow[] = [];
  for (let stop = end; stop > 0 && rows.length < count; ) {
    let start = stop - 1;
    while (start > 0 && m.states[start - 1] === m.states[start]) start--;
    let role = roleOf(m, start);
    let tokens = m.input.tokens[start] ?? 0;
    for (let k = start + 1; k < stop; k++) {
      if (role !== '*' && roleOf(m, k) !== role) role = '*';
      tokens += m.input.tokens[k] ?? 0;
    }
    rows.push([start, stop - start, role, STATES[m.states[start]!]!, tokens]);
    stop = start;
  }
  return rows.reverse();
}

export function viewMap(input: ViewMapInput, maxRows = MAX_ROWS): ViewRow[] {
  const m: Messages = { input, states: statesOf(input) };
  let count = 0;
  for (let k = 0; k < m.states.length; k++) if (opensRow(m, k)) count++;
  if (count <= maxRows) return rowsFrom(m, 0);
  // The newest half stays message by message (with a bound below 2, every row counts as newest);
  // older rows of one state fold together; what still does not fit is cut from the front (the map
  // then starts at a later index).
  const newest = Math.floor(maxRows / 2) || count;
  let from = m.states.length;
  for (let n = 0; n < newest; ) if (opensRow(m, --from)) n++;
  return [...foldedBefore(m, from, maxRows - newest), ...rowsFrom(m, from)].slice(-maxRows);
}
