// Model names in `models[].match` may be globs (`*` any run, `?` one character). A client chooses
// the name matched against them, of any length: a backtracking regex would take quadratic time or
// worse on a long name against a glob with two stars (`^.*a.*b$` took 0.6 s on 20,000 characters),
// so globs are matched by the greedy two-pointer method, at most O(name × glob) steps.

/** Whether `text` matches `glob` as a whole; `*` matches any run (also empty), `?` one UTF-16 unit. */
export function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  // Where the last `*` was, and the text position it currently stands for the end of.
  let star = -1;
  let starText = 0;
  while (t < text.length) {
    const c = glob[g];
    if (c === '*') {
      star = g++;
      starText = t;
    } else if (g < glob.length && (c === '?' || c === text[t])) {
      g++;
      t++;
    } else if (star >= 0) {
      // Let the last star take one more character and retry what follows it.
      g = star + 1;
      t = ++starText;
    } else {
      return false;
    }
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}

export function isGlob(match: string): boolean {
  return match.includes('*') || match.includes('?');
}
