import { reply, startFakeOpenAI } from '../support/fakeOpenAI';
import { openStore } from '../../server/db/store';
import { checkLogAgainstStore, type LogCheckReport } from './checkLog';
import { checkSessionsResume } from './checkResume';
import { MemoryLog, TeeLog, type ParticipantLogSink } from './jsonlLog';
import { ServerChild } from './serverChild';
import { runSimulation, type SimulationSummary } from './simulation';

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

export interface CrashScenarioResult {
  simulation: SimulationSummary;
  check: LogCheckReport;
  resume: { checked: number; problems: string[] };
  kills: number;
  restartMs: number[];
  dataDir: string;
}

export async function runCrashScenario(o: CrashScenarioOptions): Promise<CrashScenarioResult> {
  const words = Array.from({ length: o.replyTokens ?? 60 }, (_, i) => ` word${i}`).join('');
  const fake = await startFakeOpenAI({ tokensPerSecond: o.tokensPerSecond ?? 100, responder: () => reply(words) });
  const server = new ServerChild({ providerBaseURL: fake.url, databaseUrl: o.databaseUrl });
  const memory = new MemoryLog();
  const log = o.log ? new TeeLog([memory, o.log]) : memory;
  const restartMs: number[] = [];
  let kills = 0;
  try {
    await server.start();
    const lines = Array.from({ length: o.turns }, (_, i) => `Crash-test message ${i + 1}: please continue.`);
    let simulationDone = false;
    const simulation = runSimulation({
      baseUrl: server.url,
      studyId: o.studyId,
      participants: o.participants,
      concurrency: o.participants,
      chatLines: lines,
      thinkMs: o.thinkMs ?? { min: 20, max: 200 },
      log,
      sessionDeadlineMs: o.sessionDeadlineMs ?? 120_000,
      replyIdleMs: 5_000,
      // Every kill legitimately cuts the replies streaming at that moment; keep retrying.
      maxReplyRetries: 30,
      rampMs: 10,
    }).finally(() => (simulationDone = true));

    // Kill only once chat traffic is flowing, so every kill lands in the middle of something.
    while (!simulationDone && !memory.records.some((r) => r.kind === 'chat_ack')) await new Promise((r) => setTimeout(r, 50));
    for (let k = 0; k < o.kills && !simulationDone; k++) {
      await new Promise((r) => setTimeout(r, o.killEveryMs * (0.6 + 0.8 * Math.random())));
      if (simulationDone) break;
      o.onKill?.(k + 1, server.pid);
      await server.crash();
      kills += 1;
      const t0 = performance.now();
      await server.restart();
      restartMs.push(performance.now() - t0);
    }
    const summary = await simulation;
    const resume = await checkSessionsResume({ baseUrl: server.url, studyId: o.studyId, runId: summary.runId, sessions: summary.sessions });
    await server.stop();
    const store = await openStore({ dataDir: server.dataDir, databaseUrl: o.databaseUrl });
    try {
      const check = await checkLogAgainstStore(memory.records, store, { expectAnswered: true });
      return { simulation: summary, check, resume, kills, restartMs, dataDir: server.dataDir };
    } finally {
      await store.close();
    }
  } finally {
    if (o.keepDataDir) {
      if (server.alive) await server.crash();
    } else await server.dispose();
    await fake.close();
  }
}
