import { carriesError, type StreamEndRule } from '../../http/stream-end.js';

/**
 * A chat completion stream ends successfully with `data: [DONE]` (which the OpenAI SDKs read as
 * the end, as a prefix); an error event before it (`data: {"error":…}`, or an `event: error`)
 * means it failed.
 */
export const chatStreamEnd: StreamEndRule = (event) => {
  if (event.data.startsWith('[DONE]')) return 'success';
  return event.event === 'error' || carriesError(event.data) ? 'failure' : undefined;
};
