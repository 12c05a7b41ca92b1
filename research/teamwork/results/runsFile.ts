/**
 * runs.jsonl of a results folder: read (every line validated; problems name the line and field),
 * appended one finished run at a time (so Ctrl-C or a crash keeps every finished run), and compacted
 * at the end of a session so that each run key (model, task, arm, seed) has one line, the latest.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKey, TeamworkRun } from '../../../common/teamworkRun';

export const RUNS_FILE = 'runs.jsonl';

export class RunsFileError extends Error {}

/** Every run in the file, in file order (a later line with the same key replaces an earlier one). */
export function readRuns(path: string): TeamworkRun[] {
  if (!existsSync(path)) return [];
  const latest = new Map<string, TeamworkRun>();
  readFileSync(path, 'utf8').split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      throw new RunsFileError(`${path}:${i + 1}: invalid JSON (${(error as Error).message})`);
    }
    const parsed = TeamworkRun.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new RunsFileError(`${path}:${i + 1}: ${issue.path.map(String).join('.') || 'run'}: ${issue.message}`);
    }
    const key = runKey(parsed.data);
    latest.delete(key);
    latest.set(key, parsed.data);
  });
  return [...latest.values()];
}

export function readRunsIn(dir: string): TeamworkRun[] {
  return readRuns(join(dir, RUNS_FILE));
}

export function appendRun(dir: string, run: TeamworkRun): void {
  appendFileSync(join(dir, RUNS_FILE), `${JSON.stringify(run)}\n`);
}

const order = (a: TeamworkRun, b: TeamworkRun): number =>
  a.model.localeCompare(b.model) || a.task.localeCompare(b.task) || ['alone', 'calm', 'test'].indexOf(a.arm) - ['alone', 'calm', 'test'].indexOf(b.arm) || a.seed - b.seed;

/** Writes `runs` as the folder's runs.jsonl (one line per key, sorted), atomically. */
export function writeRuns(dir: string, runs: readonly TeamworkRun[]): void {
  const path = join(dir, RUNS_FILE);
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, [...runs].sort(order).map((r) => `${JSON.stringify(r)}\n`).join(''));
  renameSync(temp, path);
}

export function compactRuns(dir: string): TeamworkRun[] {
  const runs = readRunsIn(dir);
  writeRuns(dir, runs);
  return runs;
}
