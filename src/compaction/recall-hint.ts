// What compaction writes into a view that recap_recall (recall/) can bring back (rule 13).

/** The sentence a stub or the summary's header carries when recall is offered. */
export function recallHint(id: string | null): string {
  return id ? `Recall it with recap_recall (id ${id}).` : 'Earlier content can be recalled with recap_recall.';
}
