// What recap works out once per object it parsed or made (a message's hash, its token count, its
// description, its bytes) is kept on the object itself, as one hidden property, rather than in
// WeakMaps. V8 (Node 20) handles WeakMaps of hundreds of thousands of entries badly: growing one
// rehashes it in one go, and each collection processes its entries as ephemerons. With one entry
// per item in a dozen of them, a few requests of 200k items held the event loop for 100-300 ms at
// random points (the hardening bench), and a WeakMap filled with 3M short-lived keys held it for
// 11 s where the same notes as properties took 20 ms at most.
// The property is keyed by a symbol and not enumerable: JSON.stringify, Object.keys, for…in,
// spreads, structuredClone and deep equality never see it, and a copy of an object starts without
// notes, as it would with a WeakMap. Recap never uses an item as another object's prototype.

const NOTES = Symbol('recap.notes');

// One slot per kind of note, by index: an array's elements are read alike whatever the kind.
type Noted = { [NOTES]?: unknown[] };

/** One kind of note: at most one value per object. */
export interface ObjectNote<K extends object, V> {
  get(obj: K): V | undefined;
  set(obj: K, value: V): void;
}

let kinds = 0;

/** A new kind of note, made once (per module or per service, never per request). */
export function objectNote<K extends object, V>(): ObjectNote<K, V> {
  const slot = kinds++;
  // An object that takes no new property (frozen or sealed: none recap parses) keeps its notes here.
  const closed = new WeakMap<K, V>();
  return {
    get(obj) {
      const notes = (obj as Noted)[NOTES];
      return notes === undefined ? closed.get(obj) : (notes[slot] as V | undefined);
    },
    set(obj, value) {
      let notes = (obj as Noted)[NOTES];
      if (notes === undefined) {
        if (!Object.isExtensible(obj)) {
          closed.set(obj, value);
          return;
        }
        notes = [];
        Object.defineProperty(obj, NOTES, { value: notes });
      }
      notes[slot] = value;
    },
  };
}
