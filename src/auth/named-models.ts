// Every model a parsed JSON body names: the string value of each member called `model`, in any
// letter case (Go's encoding/json, which Ollama and other servers use, matches keys
// case-insensitively), at any depth: a nested `model` picks a model too (a realtime session's, an
// eval's grader, the Responses image_generation tool's). Walked with an explicit stack, as bodies
// may nest thousands of levels deep.

export function isModelKey(key: string): boolean {
  return key.length === 5 && key.toLowerCase() === 'model';
}

/** The strings named by `model` members in `value`, leaving out the top-level members in `skip`. */
export function namedModels(value: unknown, skip: ReadonlySet<string> = new Set()): string[] {
  const found: string[] = [];
  const stack: { value: unknown; top: boolean }[] = [{ value, top: true }];
  while (stack.length > 0) {
    const { value: v, top } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) if (item !== null && typeof item === 'object') stack.push({ value: item, top: false });
      continue;
    }
    for (const [key, member] of Object.entries(v)) {
      if (top && skip.has(key)) continue;
      if (typeof member === 'string') {
        if (isModelKey(key)) found.push(member);
      } else if (member !== null && typeof member === 'object') stack.push({ value: member, top: false });
    }
  }
  return found;
}
