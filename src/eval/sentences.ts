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

const STOPWORDS = new Set(
  (
    'the a an and or but if then than that this these those there here with without from into onto over under about after before ' +
    'for to of on in at by as is are was were be been being it its we our you your they their them he she his her i me my ' +
    'will would shall should can could may might must do does did done have has had not no yes so also just only very ' +
    'use using used go going keep switch move instead what which who when where why how all any each some more most other ' +
    'such same now still again once here there please thanks thank okay sure like want need make made get got let lets'
  ).split(' '),
);

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}
