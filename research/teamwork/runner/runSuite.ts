/**
 * Runs a suite for one model into a results folder: every task × arm × seed, at most `concurrency` runs
 * at a time. Each finished run is appended to runs.jsonl at once; all model calls (subject, partners,
 * judges) go through the reply cache in the folder (.teamwork-cache.sqlite). A rerun skips the runs
 * already stored with status ok/refused for the same task text — zero calls for them — and redoes runs
 * that errored, were interrupted, or whose task file changed (their finished calls come from the cache).
 * When `signal` aborts (Ctrl-C), no new run starts, runs in flight stop at their next call and are not
 * stored, and everything finished is kept.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runKey, type TeamworkRun } from '../../../common/teamworkRun';
import type { TeamworkArm, TeamworkTask } from '../../../common/teamworkTask';
import type { ModelReplyCache } from '../../../lib/storage';
import { openFileReplyCache } from '../../../lib/storage';
import { runPool } from '../../judge/workPool';
import { appendRun, compactRuns, readRunsIn } from '../results/runsFile';
import { ModelClients, type ProviderSettings } from './clients';
import { RunAborted, type RunContext } from './context';
import { runOne, type RunSpec } from './runOne';

export const CACHE_FILE = '.teamwork-cache.sqlite';
export const ARMS: readonly TeamworkArm[] = ['alone', 'calm', 'test'];

export interface SuiteProgress {
  done: number;
  total: number;
  calls: number;
  cacheHits: number;
  tokens: number;
}

export interface SuiteOptions extends ProviderSettings {
  tasks: readonly TeamworkTask[];
  model: string;
  seeds: number;
  concurrency: number;
  outDir: string;
  partner: string;
  referee: string;
  second: string;
  third?: string;
  temperature: number;
  maxTokens: number;
  signal?: AbortSignal;
  onProgress?: (p: SuiteProgress) => void;
}

export interface SuiteOutcome {
  /** Runs of this model stored in the folder after the session. */
  runs: TeamworkRun[];
  ran: number;
  skipped: number;
  interrupted: boolean;
  calls: number;
  cacheHits: number;
  tokens: number;
}

export function suiteSpecs(tasks: readonly TeamworkTask[], seeds: number): RunSpec[] {
  return tasks.flatMap((task) => ARMS.flatMap((arm) => Array.from({ length: seeds }, (_, i) => ({ task, arm, seed: i + 1 }))));
}

export async function runSuite(options: SuiteOptions): Promise<SuiteOutcome> {
  mkdirSync(options.outDir, { recursive: true });
  const stored = new Map(readRunsIn(options.outDir).map((r) => [runKey(r), r]));
  const specs = suiteSpecs(options.tasks, options.seeds);
  const finished = (s: RunSpec): boolean => {
    const r = stored.get(runKey({ model: options.model, task: s.task.id, arm: s.arm, seed: s.seed }));
    return r !== undefined && r.status !== 'error' && r.task_hash === s.task.hash;
  };
  const todo = specs.filter((s) => !finished(s));
  const skipped = specs.length - todo.length;

  const cache = await openFileReplyCache(join(options.outDir, CACHE_FILE));
  const clients = new ModelClients(options.tasks, cache, options);
  try {
    const ctx: RunContext = {
      subject: clients.seat(options.model),
      partnerFor: (model) => clients.seat(model ?? options.partner),
      referee: clients.seat(options.referee),
      second: clients.seat(options.second),
      ...(options.third ? { third: clients.seat(options.third) } : {}),
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    let done = skipped;
    let ran = 0;
    const report = (): void => {
      const s = clients.stats();
      options.onProgress?.({ done, total: specs.length, calls: s.calls, cacheHits: s.cacheHits, tokens: s.tokensSpent });
    };
    report();
    const pool = await runPool(
      todo,
      options.concurrency,
      async (spec) => {
        let run: TeamworkRun;
        try {
          run = await runOne(spec, ctx);
        } catch (error) {
          if (error instanceof RunAborted) return;
          throw error;
        }
        appendRun(options.outDir, run);
        done++;
        ran++;
        report();
      },
      options.signal,
    );
    const runs = compactRuns(options.outDir).filter((r) => r.model === options.model);
    const s = clients.stats();
    return { runs, ran, skipped, interrupted: pool.interrupted, calls: s.calls, cacheHits: s.cacheHits, tokens: s.tokensSpent };
  } finally {
    await cache.close();
  }
}
