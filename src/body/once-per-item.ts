import { objectNote } from './object-notes.js';

// What the request path works out from an item alone (its neutral description, its token count),
// worked out once per item object: an item seen before comes back as the same object with every
// request that sends its bytes (seen-items.ts), and recap never changes an item it parsed.

export function oncePerItem<T extends object, R>(fn: (item: T) => R): (item: T) => R {
  const known = objectNote<T, R>();
  return (item) => {
    let result = known.get(item);
    if (result === undefined) {
      result = fn(item);
      known.set(item, result);
    }
    return result;
  };
}

/**
 * The same for what is worked out from an item and a few values besides (a cleared stub: the tool's
 * name, the item's tokens): the result made last for the item is given again while those values
 * are the same, so that it is the same object too, whose own hash and count are known then.
 */
export function lastPerItem<T extends object, A extends readonly unknown[], R>(fn: (item: T, ...args: A) => R): (item: T, ...args: A) => R {
  const last = objectNote<T, { args: A; result: R }>();
  return (item, ...args) => {
    const made = last.get(item);
    if (made && made.args.length === args.length && made.args.every((a, i) => a === args[i])) return made.result;
    const result = fn(item, ...args);
    last.set(item, { args, result });
    return result;
  };
}
