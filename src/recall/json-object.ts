// The plain-object checks the recall adapters read replies and stream events with.

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `text` as a JSON object, or null when it is not JSON or not an object. */
export function parseObject(text: string): Obj | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObj(value) ? value : null;
  } catch {
    return null;
  }
}
