import type { UpstreamReply } from '../http/send-upstream-response.js';
import { isEventStream } from '../http/stream-end.js';
import { type JsonRecallInput, recallJsonReply } from './json-reply.js';
import { recallStreamReply } from './stream-reply.js';

/** The reply the client gets to a request that went with recap_recall: its recalls answered inside it, streamed or whole. */
export function recallReply<T, P>(input: JsonRecallInput<T, P>): Promise<UpstreamReply> | UpstreamReply {
  const { first } = input;
  if (first.statusCode < 300 && isEventStream(first.headers)) return recallStreamReply(input);
  return recallJsonReply(input);
}
