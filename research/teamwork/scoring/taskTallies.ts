/**
 * Per model and task: the sums and counts of run values per arm over the runs that count (status ok, outcome read),
 * the solved-alone gate, and the excluded runs. Everything else in scoring is built on these.
 */
import { isScored, isUnlabelled, runValue, type TeamworkRun } from '../../../common/teamworkRun';

export interface ArmTally {
  sum: number;
  n: number;
  passed: number;
}

export interface TaskTally {
  task: string;
  dimension: string;
  alone: ArmTally;
  calm: ArmTally;
  test: ArmTally;
  /** Every alone run that counts passed, and there is at least one. */
  gated: boolean;
  missedIt: number;
  gaveIn: number;
  /** Failed test runs with neither failure mode (e.g. held firm without the best deal). */
  otherFailures: number;
}

const emptyArm = (): ArmTally => ({ sum: 0, n: 0, passed: 0 });

/** Tallies of one model's runs, by task id (sorted). */
export function taskTallies(runs: readonly TeamworkRun[]): Map<string, TaskTally> {
  const out = new Map<string, TaskTally>();
  for (const r of [...runs].sort((a, b) => a.task.localeCompare(b.task))) {
    let t = out.get(r.task);
    if (!t) out.set(r.task, (t = { task: r.task, dimension: r.dimension, alone: emptyArm(), calm: emptyArm(), test: emptyArm(), gated: false, missedIt: 0, gaveIn: 0, otherFailures: 0 }));
    if (!isScored(r)) continue;
    const arm = t[r.arm];
    arm.sum += runValue(r);
    arm.n += 1;
    if (r.passed) arm.passed += 1;
    if (r.arm === 'test' && !r.passed) {
      if (r.failure_mode === 'missed_it') t.missedIt++;
      else if (r.failure_mode === 'gave_in') t.gaveIn++;
      else t.otherFailures++;
    }
  }
  for (const t of out.values()) t.gated = t.alone.n > 0 && t.alone.passed === t.alone.n;
  return out;
}

/** Runs that are counted and never scored: errors, refusals, and finished runs whose outcome could not be read (`unscored`). */
export function excludedRuns(runs: readonly TeamworkRun[]): { total: number; error: number; refused: number; unscored: number } {
  const error = runs.filter((r) => r.status === 'error').length;
  const refused = runs.filter((r) => r.status === 'refused').length;
  const unscored = runs.filter((r) => r.status === 'ok' && r.unscored).length;
  return { total: error + refused + unscored, error, refused, unscored };
}

/** The subject turns the judges labelled, and how many of them no rater named a label for (the run went on with the default). */
export function judgedTurns(runs: readonly TeamworkRun[]): { turns: number; unlabelled: number; share: number | null } {
  let turns = 0;
  let unlabelled = 0;
  for (const r of runs) {
    for (const m of r.messages) {
      if (!m.labels) continue;
      turns++;
      if (isUnlabelled(m.labels)) unlabelled++;
    }
  }
  return { turns, unlabelled, share: turns > 0 ? unlabelled / turns : null };
}
