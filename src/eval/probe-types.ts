// What a probe is: a question about the evicted span and the strings a right answer holds.

export type ProbeKind = 'identifier' | 'fact' | 'decision' | 'state';
export const PROBE_KINDS: readonly ProbeKind[] = ['identifier', 'fact', 'decision', 'state'];

export interface Probe {
  kind: ProbeKind;
  question: string;
  /** Strings a right answer contains (case and spacing aside). */
  expected: string[];
  /** The evicted message it is about (index in the evicted span). */
  message: number;
}

/** Probes about the last state before the kept part. */
export const STATE_PROBES = 2;
