import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { ModelConfig } from '../../config/config.js';
import { messageHash } from '../../conversation/canonical.js';
import type { ChatMessage, ChatRequest } from '../../messages/types.js';
import type { CountedItems, ItemCounters } from '../format.js';
import { NO_RUN, type RunNotes } from '../../body/run-notes.js';

// A chat request's tokens: each message with OpenAI's framing, the reply's priming, and the tool,
// function and response_format definitions; calibrated by the model's factor where it has one.

// Hashing a large body takes a few milliseconds; in slices, the event loop keeps moving (and
// keeps writing a request that was forwarded first) while it runs. A message seen before
// (body/seen-items.ts) has its hash already.
const HASH_SLICE_MS = 0.5;

async function hashMessages(messages: readonly ChatMessage[], from: number, earlier: readonly string[] | undefined): Promise<string[]> {
  const hashes: string[] = earlier ? earlier.slice(0, from) : [];
  let sliceStart = performance.now();
  for (let i = hashes.length; i < messages.length; i++) {
    hashes.push(messageHash(messages[i]!));
    if (performance.now() - sliceStart > HASH_SLICE_MS) {
      await nextMacrotask();
      sliceStart = performance.now();
    }
  }
  return hashes;
}

export async function countChatRequest(counters: ItemCounters, body: ChatRequest, model: ModelConfig | undefined, run: RunNotes = NO_RUN): Promise<CountedItems<ChatMessage>> {
  const counter = counters.counterFor(model?.encoding ?? 'o200k_base');
  const scale = counters.scaleFor(model);
  // One hash per message serves both the token cache and the records' hash chain. Messages taken
  // over from an earlier request come with the hashes and counts noted then.
  const hashes = await hashMessages(body.messages, run.taken, run.earlier(messageHash));
  run.note(messageHash, hashes);
  const counted = await counter.countMessagesAsync(body.messages, hashes, run.taken, run.earlier(counter));
  run.note(counter, counted.perMessage);
  const rawTools = counter.countTools(body);
  const perItem = counted.perMessage.map(scale);
  const fixedTokens = counted.total - counted.perMessage.reduce((x, y) => x + y, 0);
  const toolsTokens = scale(rawTools);
  const rawIn = counted.total + rawTools;
  return {
    counter,
    perItem,
    fixedTokens,
    toolsTokens,
    tokensIn: perItem.reduce((x, y) => x + y, 0) + fixedTokens + toolsTokens,
    rawTools,
    hashes,
    countItem: (m) => scale(counter.countMessage(m)),
    rawOut: (view) => (view ? counter.countMessages(view).total + rawTools : rawIn),
  };
}
