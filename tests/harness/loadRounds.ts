import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { openStore, type Store } from '../../lib/storage';
import { checkLogAgainstStore, isClean, type LogCheckReport } from './checkLog';
import { cpuSecondsOf, startChild } from './childProcess';
import { preciseNowMs } from '../../research/simulation/clock';
import type { EventLoopUse } from './eventLoopUse';
import { postgresCpuReader, postgresPids } from './postgresCpu';
import { MemoryLog, TeeLog, type LogRecord, type ParticipantLogSink } from '../../research/simulation/jsonlLog';
import { runRelayTraffic, type RelayTrafficResult } from './relayClients';
import { ServerChild, type ServerStats } from './serverChild';
import type { StreamReader } from './streamReaders';
import { runSimulation, type SimulationSummary } from '../../research/simulation/simulation';
import { summarizeLatencies, type LatencySummary } from '../../research/simulation/latencyStats';

/**
 * One round of the load benchmark (bench/load.ts): the platform run and the bare-relay run that
 * replays its send times. Each measures provider-token → client latency, the serving process's CPU
 * (start-up excluded) and the load generator's own event-loop delay.
 */

export interface PlatformRound {
  simulation: SimulationSummary;
  tokens: LatencySummary;
  check: LogCheckReport;
  ok: boolean;
  cpuSeconds: number | null;
  /** CPU seconds per serving part (one server: { server }; a cluster: nodes, haproxy, redis, postgres). */
  cpuByPart: Record<string, number | null>;
  clientLagMs: { p50: number; p99: number };
  /** The server process's own event-loop delay during the round. */
  serverLagMs: { p50: number; p99: number; max: number } | null;
  /** Share of time the server's event loop was busy: the whole run, its busiest 10 s (one server only). */
  serverElu: EventLoopUse | null;
  meanConcurrentReplies: number;
  /** Per participant, ms after the round's start at which each chat message was first sent. */
  sendSchedule: number[][];
  /** CPU used by the load generator (this process) and the provider process during the run. */
  rig: RigCpu;
}

/** CPU seconds of the benchmark's own processes over one run (how much of the machine the rig took). */
export interface RigCpu {
  generatorSeconds: number;
  providerSeconds: number | null;
}

/** Starts measuring the rig's CPU; call the result at the end of the run. */
function measureRig(providerPid: number | undefined): () => RigCpu {
  const generator = process.cpuUsage();
  const provider = cpuSecondsOf(providerPid);
  return () => {
    const used = process.cpuUsage(generator);
    const providerNow = cpuSecondsOf(providerPid);
    return { generatorSeconds: (used.user + used.system) / 1e6, providerSeconds: provider !== null && providerNow !== null ? providerNow - provider : null };
  };
}

/** The traffic and measurement options every platform round shares. */
export interface PlatformTrafficOptions {
  /** The provider process, to measure its CPU. */
  providerPid?: number;
  studyId: string;
  participants: number;
  turns: number;
  think: { min: number; max: number };
  sessionDeadlineMs: number;
  log?: ParticipantLogSink;
  /** Called when the server is up, right before the participants start (e.g. to clear the database's statement counts). */
  onServing?: () => void;
  /** Called when the server has stopped, before the harness reads the store to check the log (so it counts only the server's work). */
  onStopped?: () => void;
}

/**
 * What a platform round runs against: one Tandem server (runPlatformRound) or a cluster behind HAProxy
 * (bench/cluster/clusterRound.ts).
 */
export interface PlatformTarget {
  url: string;
  /** CPU seconds used so far by the serving processes, by part ({ server } or { nodes, redis, … }); null where unknown. */
  cpuSeconds(): Record<string, number | null>;
  /** Stops serving gracefully (before the database is checked). */
  stop(): Promise<void>;
  /** The serving process's own event-loop delay and utilisation, once stopped (one server only). */
  statsAfterStop?(): ServerStats | null;
  openStore(): Promise<Store>;
}

export async function runPlatformRound(o: PlatformTrafficOptions & {
  providerBaseURL: string;
  onServer?: (kill: () => Promise<void>) => void;
  /** Extra environment for the server (e.g. PROVIDER_THREAD=off). */
  serverEnv?: Record<string, string>;
  /** postgres://… runs the server on that (empty) database; default SQLite in a fresh data folder. */
  databaseUrl?: string;
  /** Write V8 CPU profiles of the server (main thread and workers) to this folder. */
  profileDir?: string;
  /** The PostgreSQL cluster's folder (tests/support/postgresCluster.ts `dir`): its CPU is measured as part `database`. */
  postgresDir?: string;
}): Promise<PlatformRound> {
  const server = new ServerChild({
    providerBaseURL: o.providerBaseURL,
    databaseUrl: o.databaseUrl,
    env: { REPLY_TIMEOUT_MS: '120000', PROVIDER_TIMEOUT_MS: '30000', ...o.serverEnv },
    ...(o.profileDir ? { nodeArgs: cpuProfileArgs(o.profileDir) } : {}),
  });
  o.onServer?.(() => server.dispose());
  const databaseCpu = o.postgresDir ? postgresCpuReader(() => postgresPids(o.postgresDir!)) : undefined;
  try {
    await server.start();
    return await measurePlatformRound(
      {
        url: server.url,
        cpuSeconds: () => ({ server: cpuSecondsOf(server.pid), ...(databaseCpu ? { database: databaseCpu() } : {}) }),
        stop: () => server.stop(),
        statsAfterStop: () => server.lastStats(),
        openStore: () => openStore({ dataDir: server.dataDir, databaseUrl: o.databaseUrl }),
      },
      o,
    );
  } finally {
    await server.dispose();
  }
}

/** Runs the participants against `target` and measures; `cpuSeconds` of the result is the sum over all parts. */
export async function measurePlatformRound(target: PlatformTarget, o: PlatformTrafficOptions): Promise<PlatformRound> {
  o.onServing?.();
  const cpuAtStart = target.cpuSeconds();
  const rig = measureRig(o.providerPid);
  const memory = new MemoryLog();
  const startedAt = preciseNowMs();
  const lag = startLagMonitor();
  const simulation = await runSimulation({
    baseUrl: target.url,
    studyId: o.studyId,
    participants: o.participants,
    concurrency: o.participants,
    chatLines: Array.from({ length: o.turns }, (_, i) => `Load-test message ${i + 1}: what do you suggest?`),
    thinkMs: o.think,
    log: o.log ? new TeeLog([memory, o.log]) : memory,
    sessionDeadlineMs: o.sessionDeadlineMs,
    replyIdleMs: 60_000,
    rampMs: 10,
  });
  const clientLagMs = lag.stop();
  const cpuNow = target.cpuSeconds();
  const rigCpu = rig();
  await target.stop();
  const stats = target.statsAfterStop?.() ?? null;
  o.onStopped?.();
  const store = await target.openStore();
  let check: LogCheckReport;
  try {
    check = await checkLogAgainstStore(memory.records, store, { expectAnswered: true });
  } finally {
    await store.close();
  }
  const cpuByPart = Object.fromEntries(
    Object.keys(cpuNow).map((part) => {
      const before = cpuAtStart[part];
      const after = cpuNow[part];
      return [part, before !== null && before !== undefined && after !== null && after !== undefined ? after - before : null];
    }),
  );
  const parts = Object.values(cpuByPart);
  return {
    simulation,
    tokens: summarizeLatencies(simulation.results.flatMap((r) => r.tokenLatencyMs)),
    check,
    ok: isClean(check) && simulation.completed === simulation.participants && simulation.streamMismatches === 0,
    cpuSeconds: parts.every((x) => x !== null) ? parts.reduce((a: number, b) => a + b!, 0) : null,
    cpuByPart,
    clientLagMs,
    serverLagMs: stats?.eventLoopDelayMs ?? null,
    serverElu: stats?.eventLoopUtilization ?? null,
    meanConcurrentReplies: meanConcurrentReplies(memory.records, simulation.wallMs),
    sendSchedule: sendSchedule(memory.records, startedAt),
    rig: rigCpu,
  };
}

export interface RelayRound {
  traffic: RelayTrafficResult;
  /** Share of time the relay's event loop was busy (whole run, busiest 10 s); null if it printed none. */
  elu: EventLoopUse | null;
  tokens: LatencySummary;
  /** relay:chat emit → ack, acknowledged on receipt: the floor for the platform's chat:send ack. */
  acks: LatencySummary;
  cpuSeconds: number | null;
  clientLagMs: { p50: number; p99: number };
  rig: RigCpu;
}

export async function runRelayRound(o: {
  providerBaseURL: string;
  providerPid?: number;
  schedule: number[][];
  /** How the relay reads the provider's stream (relay.ts). Default sdk. */
  reader?: StreamReader;
  onRelay?: (kill: () => Promise<void>) => void;
  /** Write V8 CPU profiles of the relay to this folder (beside the server's, to compare the two). */
  profileDir?: string;
}): Promise<RelayRound> {
  const relay = await startChild<{ url: string }>(new URL('./relayProcess.ts', import.meta.url), {
    env: { PROVIDER_BASE_URL: o.providerBaseURL, RELAY_READER: o.reader ?? 'sdk' },
    ...(o.profileDir ? { nodeArgs: cpuProfileArgs(o.profileDir) } : {}),
  });
  o.onRelay?.(() => relay.kill('SIGKILL'));
  try {
    const cpuAtStart = cpuSecondsOf(relay.child.pid);
    const rig = measureRig(o.providerPid);
    const lag = startLagMonitor();
    const traffic = await runRelayTraffic({ url: relay.ready.url, participants: 0, turns: 0, thinkMs: { min: 0, max: 0 }, schedule: o.schedule });
    const clientLagMs = lag.stop();
    const cpuNow = cpuSecondsOf(relay.child.pid);
    await relay.kill('SIGTERM');
    return {
      elu: (relay.lastStats() as { eventLoopUtilization?: EventLoopUse } | null)?.eventLoopUtilization ?? null,
      rig: rig(),
      traffic,
      tokens: summarizeLatencies(traffic.tokenLatenciesMs),
      acks: summarizeLatencies(traffic.ackLatenciesMs),
      cpuSeconds: cpuNow !== null && cpuAtStart !== null ? cpuNow - cpuAtStart : null,
      clientLagMs,
    };
  } finally {
    await relay.kill('SIGTERM');
  }
}

/** Node flags for V8 CPU profiles (one file per thread) sampled every 0.5 ms into `dir`. */
export function cpuProfileArgs(dir: string): string[] {
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=500'];
}

const LAG_RESOLUTION_MS = 10;

/** Event-loop delay of this (load-generating) process; percentiles in ms beyond the sampling period. */
function startLagMonitor(): { stop(): { p50: number; p99: number } } {
  const h: IntervalHistogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  h.enable();
  const beyond = (p: number) => Math.max(0, h.percentile(p) / 1e6 - LAG_RESOLUTION_MS);
  return {
    stop: () => {
      h.disable();
      return { p50: beyond(50), p99: beyond(99) };
    },
  };
}

/** Per participant, when (ms after `startedAt`) each chat message was first sent, from the log. */
function sendSchedule(records: readonly LogRecord[], startedAt: number): number[][] {
  const byParticipant = new Map<number, Map<string, number>>();
  for (const r of records) {
    if (r.kind !== 'send' || typeof r.clientId !== 'string') continue;
    const sends = byParticipant.get(r.participant) ?? byParticipant.set(r.participant, new Map()).get(r.participant)!;
    if (!sends.has(r.clientId)) sends.set(r.clientId, r.t - startedAt);
  }
  return [...byParticipant.values()].map((sends) => [...sends.values()].sort((a, b) => a - b));
}

/** Time-averaged number of replies in flight: Σ(chat ack → chat:done) / wall time. */
function meanConcurrentReplies(records: readonly LogRecord[], wallMs: number): number {
  const ackAt = new Map<string, number>();
  let streamingMs = 0;
  for (const r of records) {
    if (r.kind === 'chat_ack' && typeof r.replyId === 'string') ackAt.set(r.replyId, r.t);
    if (r.kind === 'chat:done' && typeof r.replyId === 'string' && ackAt.has(r.replyId)) streamingMs += r.t - ackAt.get(r.replyId)!;
  }
  return streamingMs / wallMs;
}
