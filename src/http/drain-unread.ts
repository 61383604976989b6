import type { IncomingMessage, ServerResponse } from 'node:http';

// A request answered before its body was read (413, a refused body) must not leave the client
// writing into a connection nobody reads, nor be cut off so hard that the answer is lost to a
// reset. As @hono/node-server does for the routes it serves: once the answer is out, the rest of
// the body is read and dropped, for at most DRAIN_MS and DRAIN_MAX_BYTES, then the connection is
// closed after what was written.
const DRAIN_MS = 500;
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

export function drainUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (req.readableEnded || req.destroyed) return;
    let bytes = 0;
    const close = () => {
      cleanup();
      req.socket.destroySoon();
    };
    const timer = setTimeout(close, DRAIN_MS).unref();
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > DRAIN_MAX_BYTES) close();
    };
    const cleanup = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', cleanup);
      req.off('error', cleanup);
    };
    req.on('data', onData);
    req.once('end', cleanup);
    req.once('error', cleanup);
    req.resume();
  });
}
