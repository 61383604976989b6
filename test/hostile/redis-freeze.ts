import { connect } from 'node:net';
import { redisCli, waitFor } from '../helpers/redis-process.js';

// Freezing a throwaway Redis the two ways it happens in production: a write pause (CLIENT PAUSE
// WRITE, as during a failover) and a stalled server (DEBUG SLEEP, like a slow command or a VM
// stall), with ways to know when each has begun and ended.

/** Whether Redis answers a PING on a fresh connection within `ms`. */
export function answersWithin(port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), ms);
    socket.once('data', () => done(true));
    socket.once('error', () => done(false));
    socket.write('PING\r\n');
  });
}

/** DEBUG SLEEP (needs `--enable-debug-command local`); resolves once Redis has stopped answering. */
export async function debugSleep(port: number, ms: number): Promise<{ woke: Promise<unknown> }> {
  const woke = redisCli(port, 'debug', 'sleep', String(ms / 1000));
  await waitFor('Redis to fall asleep', async () => !(await answersWithin(port, 50)));
  // Redis serves the connections that wrote while it slept before a fresh one; the PING after waking
  // therefore comes after everything recap sent during the sleep.
  return { woke: woke.then(() => waitFor('Redis to answer again', () => answersWithin(port, 1_000))) };
}

/** CLIENT PAUSE WRITE for `ms`: reads are served, writes are held. */
export async function pauseWrites(port: number, ms: number): Promise<void> {
  await redisCli(port, 'client', 'pause', String(ms), 'write');
}

/** Ends a CLIENT PAUSE before its time. */
export async function unpause(port: number): Promise<void> {
  await redisCli(port, 'client', 'unpause');
}

/**
 * Resolves once the pause is over and every write held before this call has run: held clients
 * resume in the order they were held, and this write is held after them.
 */
export async function writesResumed(port: number): Promise<void> {
  await redisCli(port, 'del', 'hostile-test-probe');
}
