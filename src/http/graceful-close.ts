import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// server.close() waits for every open socket, and Node's closeIdleConnections() leaves alone the
// sockets that never sent a request (clients pre-open them). On shutdown recap therefore closes
// every socket with no request in flight at once, and each other one as its last response ends,
// so in-flight requests and streams finish while nothing idle holds the process open.

export function trackConnections(server: Server): { drain(): void } {
  const inFlight = new Map<Socket, number>();
  let draining = false;
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (draining && left === 0) socket.destroy();
    });
  });
  return {
    drain() {
      draining = true;
      for (const [socket, n] of inFlight) if (n === 0) socket.destroy();
    },
  };
}
