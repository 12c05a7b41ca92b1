import { reply, startFakeOpenAI } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import { startFaultTraffic, verifyFaultTraffic, type FaultOutcome } from './faultTraffic';
import type { ParticipantLogSink } from '../../research/simulation/jsonlLog';
import { ServerChild } from './serverChild';

/**
 * Crash scenario: the server runs as a child process; while simulated participants chat, it is
 * SIGKILLed `kills` times (every `killEveryMs`, jittered) and restarted on the same data directory
 * and port. Participants reconnect, resend unacknowledged messages with the same clientId and retry
 * replies that died. Afterwards the log is compared with the database and every session is rejoined.
 */
export interface CrashScenarioOptions {
  studyId: string;
  participants: number;
  turns: number;
  kills: number;
  killEveryMs: number;
  /** Provider pace: replies of `replyTokens` tokens at `tokensPerSecond`, so kills land mid-stream. */
  replyTokens?: number;
  tokensPerSecond?: number;
  thinkMs?: { min: number; max: number };
  sessionDeadlineMs?: number;
  log?: ParticipantLogSink;
  /** Keep the data directory for inspection (default: deleted). */
  keepDataDir?: boolean;
  onKill?: (n: number, pid: number | undefined) => void;
  /** postgres://… runs the server (and the check) on that database; default SQLite in the data directory. */
  databaseUrl?: string;
}

export interface CrashScenarioResult extends FaultOutcome {
  kills: number;
  restartMs: number[];
  dataDir: string;
}

export async function runCrashScenario(o: CrashScenarioOptions): Promise<CrashScenarioResult> {
  const words = Array.from({ length: o.replyTokens ?? 60 }, (_, i) => ` word${i}`).join('');
  const fake = await startFakeOpenAI({ tokensPerSecond: o.tokensPerSecond ?? 100, responder: () => reply(words) });
  const server = new ServerChild({ providerBaseURL: fake.url, databaseUrl: o.databaseUrl });
  const restartMs: number[] = [];
  let kills = 0;
  try {
    await server.start();
    const traffic = startFaultTraffic({
      baseUrl: server.url,
      studyId: o.studyId,
      participants: o.participants,
      turns: o.turns,
      ...(o.thinkMs ? { thinkMs: o.thinkMs } : {}),
      ...(o.sessionDeadlineMs ? { sessionDeadlineMs: o.sessionDeadlineMs } : {}),
      ...(o.log ? { log: o.log } : {}),
    });
    await traffic.flowing();
    for (let k = 0; k < o.kills && !traffic.done; k++) {
      // at the latest once (k + 1)/(kills + 1) of the messages are acknowledged: every kill lands during the traffic
      if (await traffic.pause(o.killEveryMs, (k + 1) / (o.kills + 1))) break;
      o.onKill?.(k + 1, server.pid);
      await server.crash();
      kills += 1;
      const t0 = performance.now();
      await server.restart();
      restartMs.push(performance.now() - t0);
    }
    const outcome = await verifyFaultTraffic({
      traffic,
      baseUrl: server.url,
      studyId: o.studyId,
      beforeStore: () => server.stop(),
      openStore: () => openStore({ dataDir: server.dataDir, databaseUrl: o.databaseUrl }),
    });
    return { ...outcome, kills, restartMs, dataDir: server.dataDir };
  } finally {
    if (o.keepDataDir) {
      if (server.alive) await server.crash();
    } else await server.dispose();
    await fake.close();
  }
}
