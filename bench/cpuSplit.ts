/**
 * `npm run bench -- --split-cpu`: splits the CPU of the platform and of the relay into what a session costs apart
 * from its streamed tokens and what each streamed token costs, so a change (and the goal of ≤ 1.15× CPU per token)
 * can be read against the part it touches.
 *
 * After the rounds, one more platform round and relay round run with the same participants and turns, without think
 * times, against a provider that answers every message with a single token. Its CPU is the "session" part: for the
 * platform the join, consent, instructions, every socket event, the drafts, the submission, the survey, the
 * connection events and each reply's provider call and stored outcome; for the relay, its connections and each
 * reply's provider call. What the full rounds used beyond it, over the tokens they delivered beyond it, is the
 * "streaming" part per token.
 *
 * Why no think times: in a full round the streaming tokens keep the loop awake, so a session's events are handled by
 * a loop that is already running. With think times and one-token replies the loop sleeps between them, and waking it
 * for each event cost ~0.25 ms more on the 2-core VM (a session 15.6 ms of server CPU with think times of 1–3 s, 11.8
 * ms with none; `npm run bench:phases` 11.5 ms; 2026-12-06), which the split would have charged to sessions instead
 * of tokens. Both parts are estimates from two runs on a shared machine: read them as ±10 %.
 */
import { startChild } from '../tests/harness/childProcess';
import { runPlatformRound, runRelayRound } from '../tests/harness/loadRounds';

/** What a run used, with what it delivered. */
export interface CpuRun {
  cpuSeconds: number;
  /** Tokens delivered to the participants (or the relay's clients). */
  tokens: number;
}

export interface CpuSplit {
  /** CPU ms per participant of the one-token run. */
  sessionMs: number;
  /** CPU µs per token of the full rounds beyond the one-token run. */
  streamingUsPerToken: number;
}

export function splitCpu(full: CpuRun, oneToken: CpuRun, participants: number): CpuSplit {
  return {
    sessionMs: (oneToken.cpuSeconds * 1000) / participants,
    streamingUsPerToken: ((full.cpuSeconds - oneToken.cpuSeconds) * 1e6) / Math.max(1, full.tokens - oneToken.tokens),
  };
}

export interface OneTokenRoundOptions {
  studyId: string;
  participants: number;
  turns: number;
  sessionDeadlineMs: number;
  serverEnv: Record<string, string>;
  relayReader: 'sdk' | 'tandem';
  /** A fresh database for the round (PostgreSQL), with the cluster's folder to measure its backends. */
  database?: { url: string; postgresDir: string };
  onStop: (stop: () => Promise<void>) => void;
}

/** The one-token platform and relay runs: their CPU (server + database backends; relay) and tokens delivered. */
export async function runOneTokenRounds(o: OneTokenRoundOptions): Promise<{ platform: CpuRun; relay: CpuRun; ok: boolean }> {
  const provider = await startChild<{ baseURL: string }>(new URL('../tests/harness/timedProviderProcess.ts', import.meta.url), {
    env: { TOKENS_PER_REPLY: '1', TOKENS_PER_SECOND: '50', MARK_EVERY: '1' },
  });
  o.onStop(() => provider.kill('SIGKILL'));
  try {
    const p = await runPlatformRound({
      providerBaseURL: provider.ready.baseURL, providerPid: provider.child.pid, studyId: o.studyId, participants: o.participants, turns: o.turns,
      think: { min: 0, max: 0 }, sessionDeadlineMs: o.sessionDeadlineMs, onServer: o.onStop, serverEnv: o.serverEnv,
      ...(o.database ? { databaseUrl: o.database.url, postgresDir: o.database.postgresDir } : {}),
    });
    const r = await runRelayRound({ providerBaseURL: provider.ready.baseURL, providerPid: provider.child.pid, schedule: p.sendSchedule, reader: o.relayReader, onRelay: o.onStop });
    if (p.cpuSeconds === null || r.cpuSeconds === null) throw new Error('--split-cpu: the CPU time of the one-token runs could not be read');
    return { platform: { cpuSeconds: p.cpuSeconds, tokens: p.tokens.count }, relay: { cpuSeconds: r.cpuSeconds, tokens: r.tokens.count }, ok: p.ok };
  } finally {
    await provider.kill('SIGTERM');
  }
}

export function formatCpuSplit(platform: CpuSplit, relay: CpuSplit, storeLabel: string): string[] {
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  return [
    `CPU split (one-token run beside the full rounds; platform = server${storeLabel}):`,
    `  a session apart from its tokens: platform ${platform.sessionMs.toFixed(1)} ms, relay ${relay.sessionMs.toFixed(1)} ms per participant (${ratio(platform.sessionMs, relay.sessionMs)})`,
    `  each streamed token:             platform ${platform.streamingUsPerToken.toFixed(1)} µs, relay ${relay.streamingUsPerToken.toFixed(1)} µs (${ratio(platform.streamingUsPerToken, relay.streamingUsPerToken)})`,
  ];
}
