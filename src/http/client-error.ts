import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type RecapError, errorBody, errors } from '../errors.js';

// Node answers HTTP it cannot parse (bad framing such as Content-Length with Transfer-Encoding,
// oversized headers) and requests not received in time itself, with a bare status line. recap
// answers them in OpenAI's error shape instead, then closes the connection: past a framing error
// the rest of the byte stream cannot be trusted to delimit a request.

function errorFor(err: NodeJS.ErrnoException & { reason?: string }): RecapError | undefined {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return errors.requestTimeout();
  if (err.code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
  if (err.code?.startsWith('HPE_')) return errors.malformedRequest(err.reason ?? err.message);
  // A socket error (ECONNRESET, EPIPE, ...): nobody is left to read an answer.
  return undefined;
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', function answerClientError(err: NodeJS.ErrnoException, socket: Socket) {
    const recapErr = errorFor(err);
    // Like Node's default handler: never write into a response that has already begun.
    const current = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (!recapErr || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    // A request still being received has its log line and metrics written when its handler
    // gives up: they then show what the client got.
    if (current) current.statusCode = recapErr.status;
    const body = errorBody(recapErr);
    const head = [
      `HTTP/1.1 ${recapErr.status} ${STATUS_CODES[recapErr.status]}`,
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  });
}
