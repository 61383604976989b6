// The floor of the overhead bench: the least a Node proxy can do. It pipes the request bytes to
// the upstream over a keep-alive pool and pipes the response bytes back, parsing nothing.
//   node --import tsx bench/overhead-pipe.ts --upstream http://127.0.0.1:N   (prints its own URL)
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({ options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (!values.upstream) throw new Error('--upstream ORIGIN is required');
const pool = new Pool(values.upstream, { connections: 128, keepAliveTimeout: 30_000 });

// Hop-by-hop headers belong to one connection; the rest pass through untouched.
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade', 'proxy-connection', 'te', 'trailer']);
const endToEnd = (headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) =>
  Object.fromEntries(Object.entries(headers).filter(([k, v]) => v !== undefined && !HOP.has(k))) as Record<string, string | string[]>;

const server = createServer((req, res) => {
  pool
    .request({ method: req.method as 'POST', path: req.url ?? '/', headers: endToEnd(req.headers), body: req })
    .then(async (up) => {
      res.writeHead(up.statusCode, endToEnd(up.headers));
      await pipeline(up.body, res);
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(values.port), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${port}/v1\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void pool.close().then(() => process.exit(0)));
});
