import { randomBytes } from 'node:crypto';
import type { ParticipantLogSink } from './jsonlLog';
import { runParticipant, type ParticipantOptions, type ParticipantResult } from './participant';
import { summarizeLatencies, type LatencySummary } from './latencyStats';

/**
 * Runs `participants` simulated participants, at most `concurrency` at a time, and summarises what
 * happened. Shared by `npm run simulate` and the benchmarks.
 */
export interface SimulationOptions extends Omit<ParticipantOptions, 'index' | 'runId' | 'log'> {
  participants: number;
  concurrency: number;
  runId?: string;
  log: ParticipantLogSink;
  /** Delay between starting two participants (ms), so 500 joins do not land in the same instant. */
  rampMs?: number;
  onProgress?: (finished: number, total: number) => void;
}

/** The per-participant counters that a summary adds up over all participants. */
const COUNTERS = ['messagesAcked', 'resends', 'replyErrors', 'replyRetries', 'reconnects', 'turnsFailed', 'streamMismatches', 'deltas'] as const;
type Counters = Pick<ParticipantResult, (typeof COUNTERS)[number]>;

export interface SimulationSummary extends Counters {
  runId: string;
  participants: number;
  completed: number;
  errors: number;
  errorSamples: string[];
  wallMs: number;
  messagesPerSecond: number;
  chatAck: LatencySummary;
  tokenLatency: LatencySummary;
  /** Ack latencies of every request, by event name (sorted; refusals too, unlike chatAck). */
  acksByEvent: Record<string, LatencySummary>;
  /** participant index → session id */
  sessions: Map<number, string>;
  results: ParticipantResult[];
}

export function newRunId(): string {
  // letters and digits only: part of client ids (^[A-Za-z0-9_-]{8,64}$) and participant labels
  return 'r' + randomBytes(4).toString('hex');
}

export async function runSimulation(options: SimulationOptions): Promise<SimulationSummary> {
  const runId = options.runId ?? newRunId();
  const results: ParticipantResult[] = [];
  const started = performance.now();
  let nextIndex = 0;
  let finished = 0;
  async function worker(slot: number) {
    if (options.rampMs) await new Promise((r) => setTimeout(r, slot * options.rampMs!));
    while (nextIndex < options.participants) {
      const index = nextIndex++;
      const result = await runParticipant({ ...options, index, runId });
      results.push(result);
      finished += 1;
      options.onProgress?.(finished, options.participants);
    }
  }
  const workers = Math.max(1, Math.min(options.concurrency, options.participants));
  await Promise.all(Array.from({ length: workers }, (_, slot) => worker(slot)));
  const wallMs = performance.now() - started;
  results.sort((a, b) => a.index - b.index);
  const totals = Object.fromEntries(COUNTERS.map((key) => [key, results.reduce((n, r) => n + r[key], 0)])) as Record<keyof Counters, number>;
  return {
    runId,
    participants: options.participants,
    completed: results.filter((r) => r.completed).length,
    errors: results.filter((r) => r.error !== null).length,
    errorSamples: [...new Set(results.filter((r) => r.error).map((r) => r.error!))].slice(0, 5),
    ...totals,
    wallMs,
    messagesPerSecond: totals.messagesAcked / (wallMs / 1000),
    chatAck: summarizeLatencies(results.flatMap((r) => r.chatAckMs)),
    tokenLatency: summarizeLatencies(results.flatMap((r) => r.tokenLatencyMs)),
    acksByEvent: acksByEvent(results),
    sessions: new Map(results.filter((r) => r.sessionId).map((r) => [r.index, r.sessionId!])),
    results,
  };
}

function acksByEvent(results: readonly ParticipantResult[]): Record<string, LatencySummary> {
  const events = [...new Set(results.flatMap((r) => Object.keys(r.ackMsByEvent)))].sort();
  return Object.fromEntries(events.map((event) => [event, summarizeLatencies(results.flatMap((r) => r.ackMsByEvent[event] ?? []))]));
}
