// The growth table's upstream (overhead-growth.ts): it reads each request body to its end and
// answers one fixed chat completion, parsing nothing, so that what the table shows of a 8 MB
// request is the proxies' work and the transfer, not the fake upstream's JSON.parse of it.
//   node --import tsx bench/overhead-sink.ts   (prints http://127.0.0.1:PORT/v1)
import { createServer } from 'node:http';

const REPLY = JSON.stringify({
  id: 'chatcmpl-sink',
  object: 'chat.completion',
  created: 1_718_000_000,
  model: 'gpt-growth',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Done.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(REPLY) });
    res.end(REPLY);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${port}/v1\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
