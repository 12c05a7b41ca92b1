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
import { runKey, type RunSettings, type TeamworkRun } from '../../../common/teamworkRun';
import type { TeamworkArm, TeamworkTask } from '../../../common/teamworkTask';
import type { ModelReplyCache } from '../../../lib/storage';
import { openFileReplyCache } from '../../../lib/storage';
import { runPool } from '../../judge/workPool';
import { appVersion } from '../../exports/manifest';
import { appendRun, compactRuns, readRunsIn, writeRuns } from '../results/runsFile';
import { settingsDifferences } from '../results/runSettings';
import { OFFLINE_JUDGE } from '../models/offlineModels';
import { endpointOf, ModelClients, ModelSetupError, type ProviderSettings } from './clients';
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
  /** Referee and second rater may be the same model (their agreement then validates nothing). */
  sameRaters?: boolean;
  /** Drop this model's stored runs made under other settings instead of refusing to mix them. */
  replace?: boolean;
}

/** A rerun into a folder whose runs of the model were made under other settings. */
export class SettingsMixError extends Error {}

/** The settings every run of this session records. */
export function suiteSettings(options: SuiteOptions): RunSettings {
  const seats = [...new Set([options.model, options.referee, options.second, ...(options.third ? [options.third] : []), options.partner, ...options.tasks.flatMap((t) => t.teammates.flatMap((m) => (m.kind === 'llm' && m.model ? [m.model] : [])))])];
  return {
    temperature: options.temperature,
    max_tokens: options.maxTokens,
    seeds: options.seeds,
    referee: options.referee,
    second_rater: options.second,
    third_rater: options.third ?? null,
    partner: options.partner,
    tandem_version: appVersion(),
    models_file_hash: options.models?.hash ?? null,
    same_raters: options.referee === options.second,
    endpoints: Object.fromEntries(seats.sort().map((m) => [m, endpointOf(m, options)])),
  };
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
  if (options.referee === options.second && !options.sameRaters && !(ModelClients.isOffline(options.model) && options.referee === OFFLINE_JUDGE)) {
    throw new ModelSetupError(`the referee and the second rater are the same model ("${options.referee}"): their agreement would validate nothing; name two raters, or allow it with sameRaters (--same-raters)`);
  }
  const settings = suiteSettings(options);
  let storedRuns = readRunsIn(options.outDir);
  const clash = storedRuns.find((r) => r.model === options.model && r.settings && settingsDifferences(r.settings, settings).length > 0);
  if (clash && !options.replace) {
    throw new SettingsMixError(
      `${options.outDir} holds runs of ${options.model} made under other settings: ${settingsDifferences(clash.settings!, settings).join(', ')}. ` +
        'Settings never mix in one folder: give a new folder with --out, or pass --replace to drop those runs and make them again.',
    );
  }
  if (clash) {
    storedRuns = storedRuns.filter((r) => !(r.model === options.model && r.settings && settingsDifferences(r.settings, settings).length > 0));
    writeRuns(options.outDir, storedRuns);
  }
  const stored = new Map(storedRuns.map((r) => [runKey(r), r]));
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
          run = { ...(await runOne(spec, ctx)), settings };
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
