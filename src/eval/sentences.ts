// How probe text is cut up: lines, then sentences; words are runs of letters. The fake upstream's
// probe answers (src/dev/fake-probe.ts) cut passages the same way.

export function sentencesOf(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function wordsOf(text: string): string[] {
  return text.match(/[A-Za-z][A-Za-z'-]*[A-Za-z]/g) ?? [];
}
