import type { IncomingMessage, Server, ServerResponse } from 'node:http';

// A client that sends `Expect: 100-continue` (curl does for bodies over 1 MB) waits for recap's
// go-ahead before uploading. Node would give it for every request; recap withholds it from a body
// that `refuses` already rules out by its headers (a declared length over the chat route's limit),
// so the route answers 413 before the client has sent a byte of it.

export function answerExpectContinue(server: Server, refuses: (req: IncomingMessage) => boolean): void {
  server.on('checkContinue', function checkContinue(req: IncomingMessage, res: ServerResponse) {
    if (!refuses(req)) res.writeContinue();
    server.emit('request', req, res);
  });
}
