import type { StreamEndRule } from '../../http/stream-end.js';

// An Anthropic stream is a whole reply only once it ends with `message_stop`; an `error` event
// (overloaded, say, after the headers went out) means the client did not get the turn, and the
// stream stores nothing. Anthropic names each event (`event: message_stop`) and repeats the name
// as the data's `type`; a server that sends only data is read by that `type`.

const LEADING_TYPE = /^\s*\{\s*"type"\s*:\s*"([^"\\]*)"/;

export const messagesStreamEnd: StreamEndRule = (event) => {
  const type = event.event ?? LEADING_TYPE.exec(event.data)?.[1];
  if (type === 'message_stop') return 'success';
  if (type === 'error') return 'failure';
  return undefined;
};
