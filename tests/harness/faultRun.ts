import { cutStream, hang, httpError, reply, startFakeOpenAI, type FakeBehaviour } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import { checkLogAgainstStore, type LogCheckReport } from './checkLog';
import { MemoryLog, TeeLog, type LogRecord, type ParticipantLogSink } from '../../research/simulation/jsonlLog';
import { ServerChild } from './serverChild';
import { runSimulation, type SimulationSummary } from '../../research/simulation/simulation';
import { seededRandom } from '../../lib/stats/seededRandom';

/**
 * Provider-fault scenario: a fraction of provider calls (default 20%) fail, spread evenly over
 * HTTP 429, HTTP 500, a hang past the provider timeout, and a stream cut mid-reply. Every turn must
 * end in a complete reply or in a visible `chat:error` that the participant retries; no session may
 * be left stuck.
 */
export type FaultKind = '429' | '500' | 'timeout' | 'cut';
export const FAULT_KINDS: FaultKind[] = ['429', '500', 'timeout', 'cut'];

export interface FaultScenarioOptions {
  studyId: string;
  participants: number;
  turns: number;
  faultRate?: number;
  /** Seed of the fault schedule (deterministic per call index). */
  seed?: number;
  providerTimeoutMs?: number;
  /** Provider attempts per reply inside the platform (its own retry); 1 = every fault reaches the participant. */
  providerMaxAttempts?: number;
  tokensPerSecond?: number;
  sessionDeadlineMs?: number;
  log?: ParticipantLogSink;
}

export interface FaultScenarioResult {
  simulation: SimulationSummary;
  check: LogCheckReport;
  providerCalls: number;
  faults: Record<FaultKind, number>;
  /** chat:error pushes the participants saw, and how many of those were retryable. */
  chatErrorsSeen: number;
  retryableErrorsSeen: number;
  /** Retryable chat:errors after which the participant did not send chat:retry. */
  errorsNotRetried: number;
}

export async function runFaultScenario(o: FaultScenarioOptions): Promise<FaultScenarioResult> {
  const rate = o.faultRate ?? 0.2;
  const random = seededRandom(o.seed ?? 42);
  const faults: Record<FaultKind, number> = { '429': 0, '500': 0, timeout: 0, cut: 0 };
  const text = Array.from({ length: 40 }, (_, i) => ` token${i}`).join('');
  const tps = o.tokensPerSecond ?? 200;
  const fake = await startFakeOpenAI({
    tokensPerSecond: tps,
    responder: (): FakeBehaviour => {
      if (random() >= rate) return reply(text);
      const kind = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)]!;
      faults[kind] += 1;
      if (kind === '429') return httpError(429, { message: 'Rate limit reached (injected)' });
      if (kind === '500') return httpError(500, { message: 'Internal error (injected)' });
      if (kind === 'timeout') return hang();
      return cutStream(text, 5 + Math.floor(random() * 20));
    },
  });
  const server = new ServerChild({
    providerBaseURL: fake.url,
    env: {
      PROVIDER_TIMEOUT_MS: String(o.providerTimeoutMs ?? 1_500),
      PROVIDER_MAX_ATTEMPTS: String(o.providerMaxAttempts ?? 3),
      PROVIDER_BACKOFF_MS: '20',
    },
  });
  const memory = new MemoryLog();
  const log = o.log ? new TeeLog([memory, o.log]) : memory;
  try {
    await server.start();
    const simulation = await runSimulation({
      baseUrl: server.url,
      studyId: o.studyId,
      participants: o.participants,
      concurrency: o.participants,
      chatLines: Array.from({ length: o.turns }, (_, i) => `Fault-test message ${i + 1}.`),
      thinkMs: { min: 10, max: 100 },
      log,
      sessionDeadlineMs: o.sessionDeadlineMs ?? 120_000,
      replyIdleMs: 10_000,
      maxReplyRetries: 10,
      rampMs: 10,
    });
    await server.stop();
    const store = await openStore({ dataDir: server.dataDir });
    try {
      const check = await checkLogAgainstStore(memory.records, store, { expectAnswered: true });
      return { simulation, check, providerCalls: fake.requests.length, faults, ...errorsAndRetries(memory.records) };
    } finally {
      await store.close();
    }
  } finally {
    await server.dispose();
    await fake.close();
  }
}

/** From the log: chat:errors seen, and retryable ones not followed by that participant's chat:retry. */
function errorsAndRetries(records: readonly LogRecord[]): { chatErrorsSeen: number; retryableErrorsSeen: number; errorsNotRetried: number } {
  let chatErrorsSeen = 0;
  let retryableErrorsSeen = 0;
  let errorsNotRetried = 0;
  const byParticipant = new Map<string, LogRecord[]>();
  for (const r of records) {
    const key = `${String(r.run)}:${r.participant}`;
    (byParticipant.get(key) ?? byParticipant.set(key, []).get(key)!).push(r);
  }
  for (const list of byParticipant.values()) {
    list.forEach((r, i) => {
      if (r.kind !== 'chat:error') return;
      chatErrorsSeen += 1;
      if (r.retryable !== true) return;
      retryableErrorsSeen += 1;
      const later = list.slice(i + 1);
      const retried = later.some((x) => x.kind === 'ack' && x.event === 'chat:retry');
      const answeredAnyway = later.some((x) => x.kind === 'chat:done');
      if (!retried && !answeredAnyway) errorsNotRetried += 1;
    });
  }
  return { chatErrorsSeen, retryableErrorsSeen, errorsNotRetried };
}
