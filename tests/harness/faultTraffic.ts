import type { Store } from '../../lib/storage';
import { checkLogAgainstStore, formatReport, isClean, type LogCheckReport } from './checkLog';
import { checkSessionsResume } from './checkResume';
import { MemoryLog, TeeLog, type ParticipantLogSink } from '../../research/simulation/jsonlLog';
import { runSimulation, type SimulationSummary } from '../../research/simulation/simulation';
import { formatSummary } from '../../research/simulation/latencyStats';

/**
 * What every fault run shares (bench/crash.ts: one server SIGKILLed; bench/node-faults.ts: cluster nodes
 * SIGKILLed, Redis and PostgreSQL restarted): the participant traffic that keeps retrying through the faults,
 * the checks afterwards (the log against the database, every session rejoined) and the PASS/FAIL verdict.
 */
export interface FaultTrafficOptions {
  baseUrl: string;
  studyId: string;
  participants: number;
  turns: number;
  thinkMs?: { min: number; max: number };
  sessionDeadlineMs?: number;
  log?: ParticipantLogSink;
}

export interface FaultTraffic {
  /** Everything the participants logged (also written to `log`). */
  readonly memory: MemoryLog;
  readonly simulation: Promise<SimulationSummary>;
  readonly done: boolean;
  /** Resolves once the first chat message was acknowledged (or the run ended), so faults land mid-traffic. */
  flowing(): Promise<void>;
  /**
   * A pause of about `ms` (jittered ×0.6–1.4) that ends early when the traffic is over, or once `share` (0–1) of the
   * planned chat messages (participants × turns) are acknowledged; true if the traffic is over. Fault i of n paused
   * with share i/(n + 1) lands before the traffic ends however fast the machine runs it.
   */
  pause(ms: number, share?: number): Promise<boolean>;
}

export function startFaultTraffic(o: FaultTrafficOptions): FaultTraffic {
  const memory = new MemoryLog();
  // distinct messages acknowledged (a resend's ack repeats its clientId)
  const acknowledged = new Set<unknown>();
  const counter: ParticipantLogSink = {
    write: (r) => {
      if (r.kind === 'chat_ack') acknowledged.add(r.clientId);
    },
  };
  const log = new TeeLog(o.log ? [memory, counter, o.log] : [memory, counter]);
  const planned = o.participants * o.turns;
  let done = false;
  const lines = Array.from({ length: o.turns }, (_, i) => `Crash-test message ${i + 1}: please continue.`);
  const simulation = runSimulation({
    baseUrl: o.baseUrl,
    studyId: o.studyId,
    participants: o.participants,
    concurrency: o.participants,
    chatLines: lines,
    thinkMs: o.thinkMs ?? { min: 20, max: 200 },
    log,
    sessionDeadlineMs: o.sessionDeadlineMs ?? 120_000,
    replyIdleMs: 5_000,
    // Every fault legitimately cuts the replies streaming at that moment; keep retrying.
    maxReplyRetries: 30,
    rampMs: 10,
  }).finally(() => (done = true));
  const sleep = async (ms: number, share = Infinity): Promise<boolean> => {
    const until = performance.now() + ms;
    while (!done && performance.now() < until && acknowledged.size < share * planned)
      await new Promise((r) => setTimeout(r, Math.min(50, until - performance.now())));
    return done;
  };
  return {
    memory,
    simulation,
    get done() {
      return done;
    },
    flowing: async () => {
      while (!done && acknowledged.size === 0) await sleep(50);
    },
    pause: (ms, share) => sleep(ms * (0.6 + 0.8 * Math.random()), share),
  };
}

export interface FaultOutcome {
  simulation: SimulationSummary;
  check: LogCheckReport;
  resume: { checked: number; problems: string[] };
}

/** Rejoins every session at `baseUrl`, then (servers stopped by `beforeStore`) compares the log with the store. */
export async function verifyFaultTraffic(o: {
  traffic: FaultTraffic;
  baseUrl: string;
  studyId: string;
  beforeStore?: () => Promise<void>;
  openStore: () => Promise<Store>;
}): Promise<FaultOutcome> {
  const simulation = await o.traffic.simulation;
  const resume = await checkSessionsResume({ baseUrl: o.baseUrl, studyId: o.studyId, runId: simulation.runId, sessions: simulation.sessions });
  await o.beforeStore?.();
  const store = await o.openStore();
  try {
    const check = await checkLogAgainstStore(o.traffic.memory.records, store, { expectAnswered: true });
    return { simulation, check, resume };
  } finally {
    await store.close();
  }
}

/** Zero lost/duplicated/invented, every reply finished, every participant completed, every session resumes. */
export function faultRunPassed(o: FaultOutcome): boolean {
  const s = o.simulation;
  return isClean(o.check) && o.resume.problems.length === 0 && s.completed === s.participants && s.turnsFailed === 0;
}

/** The report lines every fault run prints (before its PASS/FAIL line). */
export function formatFaultOutcome(o: FaultOutcome): string[] {
  const s = o.simulation;
  const r = o.resume;
  return [
    `participants completed: ${s.completed}/${s.participants}, errors ${s.errors}${s.errorSamples.length ? ` (${s.errorSamples.join(' | ')})` : ''}`,
    `messages acked: ${s.messagesAcked}, resends ${s.resends}, reconnects ${s.reconnects}, reply retries ${s.replyRetries}, turns given up ${s.turnsFailed}`,
    `chat ack latency: ${formatSummary(s.chatAck)}`,
    `log vs database: ${formatReport(o.check)}`,
    `sessions resumable: ${r.checked - r.problems.length}/${r.checked}${r.problems.length ? ` — ${r.problems.slice(0, 3).join('; ')}` : ''}`,
  ];
}
