import { openStore } from '../../lib/storage';
import { startFaultTraffic, verifyFaultTraffic, type FaultOutcome } from '../../tests/harness/faultTraffic';
import type { ParticipantLogSink } from '../../research/simulation/jsonlLog';
import { reply, startFakeOpenAI } from '../../tests/support/fakeOpenAI';
import { startCluster, type AdapterKind } from './cluster';

/**
 * Node-fault scenario (bench/node-faults.ts, tests/cluster/nodeKill.test.ts): participants chat through HAProxy
 * to a cluster of `nodes`; one node at a time (round robin) is SIGKILLed `kills` times and restarted; Redis is
 * restarted once after a third of the kills and PostgreSQL once after two thirds. Participants reconnect through
 * HAProxy to a live node, resend unacknowledged messages and retry cut replies; afterwards every session is
 * rejoined and the participants' log is compared with the database (tests/harness/faultTraffic.ts).
 */
export interface NodeFaultOptions {
  nodes: number;
  participants: number;
  turns: number;
  kills: number;
  killEveryMs: number;
  studyId?: string;
  adapter?: AdapterKind;
  restartRedis?: boolean;
  restartPostgres?: boolean;
  /** Provider pace: replies of `replyTokens` tokens at `tokensPerSecond`, so kills land mid-stream. */
  replyTokens?: number;
  tokensPerSecond?: number;
  sessionDeadlineMs?: number;
  log?: ParticipantLogSink;
  onEvent?: (line: string) => void;
}

export interface NodeFaultResult extends FaultOutcome {
  kills: number;
  redisRestarts: number;
  postgresRestarts: number;
  /** ms from SIGKILL to the restarted node answering /healthz. */
  restartMs: number[];
}

export async function runNodeFaultScenario(o: NodeFaultOptions): Promise<NodeFaultResult> {
  const studyId = o.studyId ?? 'travel-planning';
  const say = o.onEvent ?? (() => {});
  const words = Array.from({ length: o.replyTokens ?? 60 }, (_, i) => ` word${i}`).join('');
  const fake = await startFakeOpenAI({ tokensPerSecond: o.tokensPerSecond ?? 100, responder: () => reply(words) });
  const cluster = await startCluster({ nodes: o.nodes, providerBaseURL: fake.url, adapter: o.adapter ?? 'redis', onLog: say }).catch(async (err: unknown) => {
    await fake.close();
    throw err;
  });
  const restartMs: number[] = [];
  let kills = 0;
  let redisRestarts = 0;
  let postgresRestarts = 0;
  const redisAfter = o.restartRedis === false || cluster.adapter === 'none' ? Infinity : Math.max(1, Math.ceil(o.kills / 3));
  const postgresAfter = o.restartPostgres === false ? Infinity : Math.max(1, Math.ceil((2 * o.kills) / 3));
  try {
    const traffic = startFaultTraffic({
      baseUrl: cluster.url,
      studyId,
      participants: o.participants,
      turns: o.turns,
      ...(o.sessionDeadlineMs ? { sessionDeadlineMs: o.sessionDeadlineMs } : {}),
      ...(o.log ? { log: o.log } : {}),
    });
    await traffic.flowing();
    // Each fault waits about its interval, or less when the traffic runs out sooner: fault i of n comes at the latest
    // once i/(n + 1) of the messages are acknowledged, so every planned fault lands during the traffic.
    const faults = o.kills + (redisAfter <= o.kills ? 1 : 0) + (postgresAfter <= o.kills ? 1 : 0);
    let issued = 0;
    const untilNextFault = (ms: number): Promise<boolean> => traffic.pause(ms, ++issued / (faults + 1));
    // A killed node restarts in the background while the run goes on (a restart takes seconds on a loaded box);
    // the next kill takes the next node that is up, and never the last one up.
    const restarting = new Map<string, Promise<void>>();
    let next = 0;
    for (let k = 0; k < o.kills && !traffic.done; k++) {
      if (await untilNextFault(o.killEveryMs)) break;
      if (cluster.nodes.length - restarting.size < 2) await Promise.race(restarting.values());
      // Round robin over all nodes, skipping those still restarting.
      let node = cluster.nodes[next % cluster.nodes.length]!;
      while (restarting.has(node.id)) node = cluster.nodes[++next % cluster.nodes.length]!;
      next += 1;
      say(`kill ${k + 1}: SIGKILL ${node.id} (pid ${node.pid})`);
      const t0 = performance.now();
      await node.kill('SIGKILL');
      kills += 1;
      restarting.set(
        node.id,
        node.restart().then(() => {
          restartMs.push(performance.now() - t0);
          restarting.delete(node.id);
          say(`${node.id} back after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        }),
      );
      if (kills === redisAfter) {
        if (await untilNextFault(o.killEveryMs / 2)) break;
        say('restart redis');
        await cluster.redis.restart();
        redisRestarts += 1;
      }
      if (kills === postgresAfter) {
        if (await untilNextFault(o.killEveryMs / 2)) break;
        // 'immediate': like a crash of the database server; WAL replay on start, every connection cut.
        say('restart postgres (immediate shutdown)');
        await cluster.postgres.restart('immediate');
        postgresRestarts += 1;
      }
    }
    await Promise.all(restarting.values());
    const outcome = await verifyFaultTraffic({
      traffic,
      baseUrl: cluster.url,
      studyId,
      beforeStore: async () => {
        for (const node of cluster.nodes) await node.kill('SIGTERM');
      },
      openStore: () => openStore({ dataDir: cluster.dataDir, databaseUrl: cluster.databaseUrl }),
    });
    return { ...outcome, kills, redisRestarts, postgresRestarts, restartMs };
  } finally {
    await cluster.stop();
    await fake.close();
  }
}
