import type { NeutralItem } from '../compaction/items.js';
import type { ChatMessage } from '../messages/types.js';

/**
 * What the engine needs of one wire format's items. Each route (wire/chat/, wire/responses/) has one; the
 * engine plans over the neutral items and builds views from these, never looking at a wire shape.
 */
export interface WireItems<T> {
  /** A conversation's records are kept per route. */
  readonly route: 'chat' | 'responses';
  describe(item: T): NeutralItem;
  /** The item that carries recap's summary: `sealed` is the summary codec's text. */
  summaryItem(sealed: string): T;
  /** The text of an item that could be recap's summary (the caller checks its seal), else null. */
  sealedTextOf(item: T): string | null;
  /** A result with its content replaced by the stub of rule 11, naming the tool and the size (and `recall`: saying it can be recalled). */
  cleared(item: T, toolName: string | null, tokens: number, recall: boolean): T;
  /** The item as a chat message for the summarizer's transcript and the template; null: nothing to show. */
  asChat(item: T): ChatMessage | null;
}
