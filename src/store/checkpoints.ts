import type { Checkpoint, CheckpointEdit, ConversationRecord, LockHolder } from './store.js';

// Pure checkpoint-list logic, shared by both stores so they cannot drift apart: the edits the
// request path makes (add, confirm, discard) and the bound on what a record keeps.

export function prefixOf(cp: Checkpoint): number {
  return cp.prefix ?? cp.covered;
}

export function isPending(cp: Checkpoint): boolean {
  return cp.pendingUntil !== undefined;
}

/** A provisional checkpoint nobody confirmed in time is no longer used. */
export function isLive(cp: Checkpoint, now: number): boolean {
  return cp.pendingUntil === undefined || cp.pendingUntil > now;
}

/** Whether `cp` is about exactly the first items of a request whose chain links are `links`. */
export function applies(cp: Checkpoint, links: readonly string[]): boolean {
  const prefix = prefixOf(cp);
  return prefix >= 1 && prefix <= links.length && links[prefix - 1] === cp.chainHash;
}

function sameCheckpoint(a: Checkpoint, b: Checkpoint): boolean {
  return prefixOf(a) === prefixOf(b) && a.chainHash === b.chainHash && a.covered === b.covered;
}

export interface RecordBound {
  /** Checkpoints kept on the writer's branch (those the writer's request still starts with). */
  perBranch: number;
  /** Checkpoints kept in all, the other branches' newest first. */
  total: number;
}

/**
 * The list with `checkpoint` in it: one about the same prefix is replaced, expired provisional
 * ones go, the writer's branch (`onBranch`) keeps its `perBranch` longest prefixes, and the
 * other branches share what is left of `total`, newest first. Sorted by prefix.
 */
export function mergeCheckpoint(list: readonly Checkpoint[], checkpoint: Checkpoint, now: number, bound: RecordBound, onBranch: (cp: Checkpoint) => boolean): Checkpoint[] {
  const others = list.filter((cp) => !sameCheckpoint(cp, checkpoint) && isLive(cp, now));
  const branch = [...others.filter(onBranch), checkpoint].sort((a, b) => prefixOf(a) - prefixOf(b) || a.createdAt - b.createdAt).slice(-bound.perBranch);
  const rest = others
    .filter((cp) => !onBranch(cp))
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, Math.max(0, bound.total - branch.length));
  return [...branch, ...rest].sort((a, b) => prefixOf(a) - prefixOf(b) || a.createdAt - b.createdAt);
}

export function addEdit(checkpoint: Checkpoint, bound: RecordBound, onBranch: (cp: Checkpoint) => boolean): CheckpointEdit {
  return (list, now) => mergeCheckpoint(list, checkpoint, now, bound, onBranch);
}

/**
 * A turn that used `checkpoint` got its 2xx: the checkpoint stays for good. When it is no longer
 * stored (its maker's turn failed and discarded it, or it expired), this turn's success is reason
 * enough to store it again.
 */
export function confirmEdit(checkpoint: Checkpoint, bound: RecordBound, onBranch: (cp: Checkpoint) => boolean): CheckpointEdit {
  const { pendingUntil: _until, pendingToken: _token, ...confirmed } = checkpoint;
  return (list, now) => {
    const stored = list.find((cp) => sameCheckpoint(cp, checkpoint));
    if (stored && !isPending(stored)) return null;
    return mergeCheckpoint(list, confirmed, now, bound, onBranch);
  };
}

/** The failed turn that made a provisional checkpoint takes it back, unless a turn confirmed it. */
export function discardEdit(token: string): CheckpointEdit {
  return (list) => {
    const kept = list.filter((cp) => !(isPending(cp) && cp.pendingToken === token));
    return kept.length === list.length ? null : kept;
  };
}

/**
 * Whether `after` holds a live checkpoint for a request with these links that `before` did not:
 * one its own branch wrote meanwhile (what other branches write, or confirming, changes nothing).
 */
export function landedOnBranch(before: ConversationRecord | null, after: ConversationRecord | null, links: readonly string[], now = Date.now()): boolean {
  const seen = before?.checkpoints ?? [];
  return (after?.checkpoints ?? []).some((cp) => isLive(cp, now) && applies(cp, links) && !seen.some((old) => sameCheckpoint(old, cp)));
}

/** The holders whose coming checkpoint a request with these links will be able to use. */
export function holdersAhead(holders: readonly LockHolder[], links: readonly string[], beyond: number): LockHolder[] {
  return holders.filter((h) => h.prefix > beyond && h.prefix <= links.length && links[h.prefix - 1] === h.link);
}
