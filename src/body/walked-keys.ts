import { objectNote } from './object-notes.js';

// Object.keys of an object with hundreds of thousands of keys takes 80-120 ms in one call (V8
// collects and orders a dictionary's keys at once). The sliced parse (parse-sliced.ts) builds such
// objects key by key and records their keys as it goes, so that a later walk in slices
// (stringify.ts, for canonical hashes) need not ask for them again. Only objects the parse walked
// (the big ones) are recorded; the record goes with the object.

const recorded = objectNote<object, string[]>();

/** Records `keys`, each once, in the order first set, as the keys of `obj`. */
export function recordKeys(obj: object, keys: string[]): void {
  recorded.set(obj, keys);
}

/** The keys of `obj` in no particular order: the recorded ones, else Object.keys. */
export function keysInAnyOrder(obj: object): string[] {
  return recorded.get(obj) ?? Object.keys(obj);
}
