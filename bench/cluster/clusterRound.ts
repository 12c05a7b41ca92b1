import { openStore } from '../../lib/storage';
import { cpuSecondsOf } from '../../tests/harness/childProcess';
import { postgresCpuReader } from '../../tests/harness/postgresCpu';
import { measurePlatformRound, type PlatformRound, type PlatformTrafficOptions } from '../../tests/harness/loadRounds';
import { startCluster, type AdapterKind, type Cluster } from './cluster';

/**
 * One platform round of the load benchmark (bench/load.ts --nodes) through a fresh cluster: HAProxy in front of
 * `nodes` nodes on PostgreSQL with the given socket.io adapter. CPU is measured per part — the nodes together,
 * HAProxy, Redis, PostgreSQL — so the bench can say how much of the cost per token the adapter adds.
 */
export async function runClusterRound(
  o: PlatformTrafficOptions & {
    nodes: number;
    adapter: AdapterKind;
    providerBaseURL: string;
    nodeEnv?: Record<string, string>;
    onCluster?: (stop: () => Promise<void>) => void;
  },
): Promise<PlatformRound> {
  const cluster: Cluster = await startCluster({
    nodes: o.nodes,
    adapter: o.adapter,
    providerBaseURL: o.providerBaseURL,
    nodeEnv: { REPLY_TIMEOUT_MS: '120000', PROVIDER_TIMEOUT_MS: '30000', ...o.nodeEnv },
  });
  o.onCluster?.(() => cluster.stop());
  try {
    const sum = (each: Array<number | null>): number | null => (each.every((x) => x !== null) ? each.reduce((a: number, b) => a + b!, 0) : null);
    const postgresCpu = postgresCpuReader(() => cluster.pids().postgres);
    return await measurePlatformRound(
      {
        url: cluster.url,
        cpuSeconds: () => {
          const p = cluster.pids();
          return {
            nodes: sum(p.nodes.map((pid) => cpuSecondsOf(pid))),
            haproxy: cpuSecondsOf(p.haproxy),
            ...(p.redis !== undefined ? { redis: cpuSecondsOf(p.redis) } : {}),
            postgres: postgresCpu(),
          };
        },
        stop: async () => {
          for (const node of cluster.nodes) await node.kill('SIGTERM');
        },
        openStore: () => openStore({ dataDir: cluster.dataDir, databaseUrl: cluster.databaseUrl }),
      },
      o,
    );
  } finally {
    await cluster.stop();
  }
}
