import { type LeftOutInput, leftOutPassages, type Passage, type ViewShape } from './left-out.js';

// What answering recalls inside one reply needs to know of its request: built once the view is
// chosen, when the view leaves something out and the request may be offered recall.

export interface RecallSession<T> {
  /** The model's config entry (`match`), for metrics and logs. */
  modelLabel: string;
  maxHops: number;
  maxResultTokens: number;
  /** Tokens the forwarded prompt may still grow by (the calls and their results) within its budget. */
  room: number;
  /** Tokens the injected tool definition adds to the prompt (calibrated, and as counted). */
  toolTokens: number;
  rawToolTokens: number;
  /** What the view left out, worked out on the first recall. */
  passages(): readonly Passage[];
  countItem(item: T): number;
  countText(text: string): number;
  /** Request indices of the left-out items the answers gave back, filled in as the reply goes (the event's view map). */
  recalled: Set<number>;
}

export interface SessionInput<T> {
  modelLabel: string;
  recall: { max_hops: number; max_result_tokens: number };
  items: LeftOutInput<T>;
  shape: ViewShape;
  room: number;
  toolTokens: number;
  rawToolTokens: number;
  countItem(item: T): number;
  countText(text: string): number;
}

/** Whether the view `shape` leaves anything out: a summarized item or a cleared result. */
export function leavesOut(shape: ViewShape): boolean {
  return shape.cleared.size > 0 || shape.covered > new Set(shape.kept).size;
}

export function recallSession<T>(input: SessionInput<T>): RecallSession<T> {
  let passages: Passage[] | undefined;
  return {
    modelLabel: input.modelLabel,
    maxHops: input.recall.max_hops,
    maxResultTokens: input.recall.max_result_tokens,
    room: input.room,
    toolTokens: input.toolTokens,
    rawToolTokens: input.rawToolTokens,
    passages: () => {
      passages ??= leftOutPassages(input.items, input.shape);
      return passages;
    },
    countItem: input.countItem,
    countText: input.countText,
    recalled: new Set(),
  };
}
