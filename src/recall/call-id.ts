import { randomBytes } from 'node:crypto';

// A recap_recall call that came without a usable id (a number, null, none) is still recap's to
// answer (rule 13): the continuation names it by an id of recap's, unique within the reply, which
// the client never sees.

export function recallCallId(): string {
  return `call_recap_${randomBytes(9).toString('base64url')}`;
}
