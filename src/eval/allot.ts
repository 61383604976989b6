import { PROBE_KINDS, type Probe, type ProbeKind, STATE_PROBES } from './probe-types.js';

// How many probes of each kind: the last state first (it is small), then decisions, facts and
// identifiers by shares, each spread evenly over the evicted span, and the room left filled from
// the kinds that have more.

/** Up to `max` probes: shares per kind, spread evenly over the span, the rest filled from what is left. */
export function allot(max: number, byKind: Record<ProbeKind, Probe[]>): Probe[] {
  const share: Record<ProbeKind, number> = { state: Math.min(STATE_PROBES, Math.ceil(max * 0.1)), decision: Math.ceil(max * 0.2), fact: Math.ceil(max * 0.3), identifier: max };
  const picked = new Map<ProbeKind, Probe[]>();
  let room = max;
  for (const kind of ['state', 'decision', 'fact', 'identifier'] as const) {
    const take = spread(byKind[kind], Math.min(share[kind], room));
    picked.set(kind, take);
    room -= take.length;
  }
  for (const kind of ['identifier', 'fact', 'decision'] as const) {
    if (room <= 0) break;
    const rest = byKind[kind].filter((p) => !picked.get(kind)!.includes(p));
    const more = spread(rest, room);
    picked.set(kind, [...picked.get(kind)!, ...more]);
    room -= more.length;
  }
  return PROBE_KINDS.flatMap((kind) => picked.get(kind)!.sort((a, b) => a.message - b.message));
}

/** `n` items spread evenly over the list, first and last included. */
function spread<T>(items: readonly T[], n: number): T[] {
  if (n <= 0) return [];
  if (items.length <= n) return [...items];
  if (n === 1) return [items[0]!];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]!);
}
