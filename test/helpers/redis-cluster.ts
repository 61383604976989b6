import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, killProcess, redisCli, spawnRedisServer, waitFor } from './redis-process.js';

// A three-master Redis Cluster of throwaway processes (no replicas), for the cluster store suite.

export interface ThrowawayCluster {
  /** The store.url of this cluster (redis+cluster://seed,seed,seed). */
  url: string;
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}

export async function startRedisCluster(): Promise<ThrowawayCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'recap-cluster-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => killProcess(child, 'SIGKILL')));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // Bus ports are named explicitly: the default (port + 10000) may be taken or above 65535.
    const [p1 = 0, p2 = 0, p3 = 0, ...busPorts] = await freePorts(6);
    const ports = [p1, p2, p3];
    // The nodes start side by side; every one that started is stopped if another did not.
    const started = await Promise.allSettled(
      ports.map((port, i) =>
        spawnRedisServer(port, dir, ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-port', String(busPorts[i])]),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') children.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    await redisCli(p1, '--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes');
    await Promise.all(ports.map((port) => waitFor(`cluster_state:ok on :${port}`, async () => (await redisCli(port, 'cluster', 'info')).includes('cluster_state:ok'), 20_000)));
    const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
    return { url: `redis+cluster://${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`, nodes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
