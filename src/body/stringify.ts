import type { Pause } from '../slicing/slicer.js';
import { keysInAnyOrder } from './walked-keys.js';

// JSON.stringify recurses on the call stack and throws a RangeError on a value nested a few
// thousand levels deep, which a client can send (JSON.parse takes any depth); and it cannot be
// interrupted, while a value of 200k tool calls takes it hundreds of milliseconds. JsonWriter
// writes the same text as JSON.stringify for the values JSON.parse produces (objects, arrays,
// strings, numbers, booleans, null) with an explicit stack, a bounded number of steps at a time.
// Strings are quoted by JSON.stringify itself.

export interface StringifyOptions {
  /**
   * Write each object's keys as JSON.stringify writes the object rebuilt with its keys inserted
   * in sorted order (integer-like keys first, as JS objects list them).
   */
  sortKeys?: boolean;
  /** Leave out members whose value is null. */
  dropNulls?: boolean;
}

// Integer-like keys ("0", "42") always come first in a JS object's key order, in numeric order.
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const MAX_ARRAY_INDEX = 2 ** 32 - 2;

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && ARRAY_INDEX.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

// Sorting the keys of a huge object is itself long (300k keys: ~130 ms): past RUN keys they are
// sorted as runs of RUN and merged, a bounded part per step.
const RUN = 4096;
const PIECES_PER_CHUNK = 4096;

/** A merge sort in steps of about RUN elements; `step()` says whether it is done. */
class SortInSteps {
  private runs: string[][] = [];
  private next = 0;
  private merged: string[][] = [];
  private merging: { a: string[]; b: string[]; i: number; j: number; out: string[] } | undefined;

  constructor(private readonly keys: string[]) {}

  get result(): string[] {
    return this.runs[0] ?? [];
  }

  step(): boolean {
    if (this.next < this.keys.length) {
      const start = this.next;
      this.next += RUN;
      this.runs.push(this.keys.slice(start, this.next).sort());
      return false;
    }
    if (this.merging) {
      const m = this.merging;
      for (let n = 0; n < RUN && (m.i < m.a.length || m.j < m.b.length); n++) {
        m.out.push(m.j >= m.b.length || (m.i < m.a.length && m.a[m.i]! < m.b[m.j]!) ? m.a[m.i++]! : m.b[m.j++]!);
      }
      if (m.i < m.a.length || m.j < m.b.length) return false;
      this.merged.push(m.out);
      this.merging = undefined;
    }
    if (this.runs.length >= 2) {
      this.merging = { a: this.runs.shift()!, b: this.runs.shift()!, i: 0, j: 0, out: [] };
      return false;
    }
    if (this.merged.length > 0) {
      // One pass is done: the merged runs (and an odd one left over) make the next pass.
      this.runs = [...this.merged, ...this.runs];
      this.merged = [];
      return this.runs.length === 1 ? true : false;
    }
    return true;
  }
}

type Frame =
  | { kind: 'array'; items: readonly unknown[]; next: number }
  | { kind: 'object'; obj: Record<string, unknown>; keys: string[]; next: number; wrote: boolean }
  | { kind: 'sort'; obj: Record<string, unknown>; indices: string[]; sort: SortInSteps };

/** What a scalar writes; undefined for what JSON.stringify leaves out (undefined, functions). */
function scalar(v: unknown): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return undefined;
  }
}

export class JsonWriter {
  private readonly out: string[] = [];
  private readonly chunks: string[] = [];
  private readonly stack: Frame[] = [];

  constructor(
    value: unknown,
    private readonly options: StringifyOptions = {},
  ) {
    // A top-level value JSON.stringify cannot write gives ''.
    if (!this.open(value)) this.out.push(scalar(value) ?? '');
  }

  /** The text written; complete once run() returned true. */
  text(): string {
    return this.pieces().join('');
  }

  /** The text written, as pieces to use in turn (hashing 15 MB needs no 15 MB string). */
  pieces(): string[] {
    this.flush();
    return this.chunks;
  }

  /**
   * Runs steps worth up to `work` units (a member or element is one, a sort step RUN); true when
   * the whole value is written.
   */
  run(work: number): boolean {
    for (let used = 0; used < work; ) {
      const frame = this.stack[this.stack.length - 1];
      if (frame === undefined) return true;
      if (frame.kind === 'sort') {
        this.sortStep(frame);
        used += RUN;
      } else {
        if (frame.kind === 'array') this.arrayStep(frame);
        else this.objectStep(frame);
        used++;
      }
      // Joined as it goes: one join of a million small pieces at the end took 0.3 s.
      if (this.out.length >= PIECES_PER_CHUNK) this.flush();
    }
    return this.stack.length === 0;
  }

  private flush(): void {
    this.chunks.push(this.out.join(''));
    this.out.length = 0;
  }

  private open(v: unknown): boolean {
    if (Array.isArray(v)) {
      this.out.push('[');
      this.stack.push({ kind: 'array', items: v, next: 0 });
      return true;
    }
    if (v === null || typeof v !== 'object') return false;
    this.out.push('{');
    const obj = v as Record<string, unknown>;
    if (!this.options.sortKeys) {
      this.stack.push({ kind: 'object', obj, keys: Object.keys(obj), next: 0, wrote: false });
      return true;
    }
    // Sorted anyway, so any order will do: the keys a sliced parse recorded spare Object.keys.
    const all = keysInAnyOrder(obj);
    const indices = all.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
    const rest = indices.length === 0 ? [...all] : all.filter((k) => !isArrayIndex(k));
    if (rest.length <= RUN) {
      this.stack.push({ kind: 'object', obj, keys: [...indices, ...rest.sort()], next: 0, wrote: false });
    } else {
      this.stack.push({ kind: 'sort', obj, indices, sort: new SortInSteps(rest) });
    }
    return true;
  }

  private sortStep(frame: Extract<Frame, { kind: 'sort' }>): void {
    if (!frame.sort.step()) return;
    this.stack[this.stack.length - 1] = { kind: 'object', obj: frame.obj, keys: [...frame.indices, ...frame.sort.result], next: 0, wrote: false };
  }

  private arrayStep(frame: Extract<Frame, { kind: 'array' }>): void {
    if (frame.next === frame.items.length) {
      this.out.push(']');
      this.stack.pop();
      return;
    }
    const v = frame.items[frame.next];
    if (frame.next++ > 0) this.out.push(',');
    if (!this.open(v)) this.out.push(scalar(v) ?? 'null');
  }

  private objectStep(frame: Extract<Frame, { kind: 'object' }>): void {
    if (frame.next === frame.keys.length) {
      this.out.push('}');
      this.stack.pop();
      return;
    }
    const key = frame.keys[frame.next++]!;
    const v = frame.obj[key];
    const isObject = v !== null && typeof v === 'object';
    const text = isObject ? undefined : scalar(v);
    if (!isObject && (text === undefined || (this.options.dropNulls && v === null))) return;
    this.out.push(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
    frame.wrote = true;
    if (!this.open(v)) this.out.push(text!);
  }
}

/** JSON.stringify(value), without recursion, in one go. */
export function stringifyJson(value: unknown, options: StringifyOptions = {}): string {
  const writer = new JsonWriter(value, options);
  writer.run(Infinity);
  return writer.text();
}

// Work between two looks at the clock (see run()).
const WORK_PER_CHECK = 2048;

/** stringifyJson(value, options), pausing between slices of steps; the text in pieces. */
export async function stringifyJsonSliced(value: unknown, options: StringifyOptions, pause: Pause): Promise<string[]> {
  const writer = new JsonWriter(value, options);
  while (!writer.run(WORK_PER_CHECK)) await pause();
  return writer.pieces();
}
