import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A server that nothing should ever reach: SSRF tests point every host, base URL and redirect a
// client can name at it, then check that it saw no request at all.

export interface Attacker {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** 127.0.0.1:PORT, for Host-style headers. */
  host: string;
  /** `METHOD target` of every request it received. */
  requests: string[];
  close(): Promise<void>;
}

export async function startAttacker(): Promise<Attacker> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":[{"message":{"role":"assistant","content":"attacker"}}]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
