import { identifiersIn, mentions } from '../src/compaction/identifiers.js';
import type { ChatMessage } from '../src/messages/types.js';
import { messageText } from './message-text.js';

// What of the first third of the example the compacted request recap forwarded still names
// (issue 26): the identifiers its user messages stated, and those its tool calls acted on (the
// order ids of `lookup_order`, the example's artifact trail), read from the decoded arguments.

export interface Trail {
  user_identifiers: number;
  user_identifiers_kept: number;
  call_identifiers: number;
  call_identifiers_kept: number;
}

function argumentValues(m: ChatMessage): string[] {
  return (m.tool_calls ?? []).flatMap((c) => {
    try {
      return Object.values(JSON.parse(c.function.arguments) as Record<string, unknown>).filter((v): v is string => typeof v === 'string');
    } catch {
      return [];
    }
  });
}

export function trailFigures(conversation: readonly ChatMessage[], forwarded: readonly ChatMessage[]): Trail {
  const firstThird = conversation.slice(0, Math.ceil(conversation.length / 3));
  const stated = [...new Set(firstThird.filter((m) => m.role === 'user').flatMap((m) => identifiersIn(messageText(m))))];
  const called = [...new Set(firstThird.flatMap((m) => argumentValues(m).flatMap(identifiersIn)))];
  const sent = forwarded.map(messageText).join('\n');
  const kept = (ids: string[]) => ids.filter((id) => mentions(sent, id)).length;
  return { user_identifiers: stated.length, user_identifiers_kept: kept(stated), call_identifiers: called.length, call_identifiers_kept: kept(called) };
}
