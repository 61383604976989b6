// What the request path works out from an item alone (its neutral description, its token count),
// worked out once per item object: an item seen before comes back as the same object with every
// request that sends its bytes (seen-items.ts), and recap never changes an item it parsed.

export function oncePerItem<T extends object, R>(fn: (item: T) => R): (item: T) => R {
  const known = new WeakMap<T, R>();
  return (item) => {
    let result = known.get(item);
    if (result === undefined) {
      result = fn(item);
      known.set(item, result);
    }
    return result;
  };
}
