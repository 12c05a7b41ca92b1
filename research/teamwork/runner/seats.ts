/**
 * Who says what in a round: the scripted teammate's next line (verbatim, in order, each once — the
 * first unsaid line whose `when` holds on the judges' label of the model's last message and on the
 * round) and the environment seats' fixed posts.
 */
import type { LineCondition, TeamArm, TeamworkTask } from '../../../common/teamworkTask';

export interface BranchState {
  round: number;
  /** Final label of the model's last message; null before it has spoken. */
  lastLabel: string | null;
  /** Final labels of all its earlier messages. */
  everLabels: ReadonlySet<string>;
}

export function conditionHolds(when: LineCondition | undefined, state: BranchState): boolean {
  if (!when) return true;
  if (when.label && (state.lastLabel === null || !when.label.includes(state.lastLabel))) return false;
  if (when.not_label && state.lastLabel !== null && when.not_label.includes(state.lastLabel)) return false;
  if (when.ever_label && !when.ever_label.some((l) => state.everLabels.has(l))) return false;
  if (typeof when.round === 'number' && state.round !== when.round) return false;
  if (typeof when.round === 'object') {
    if (when.round.min !== undefined && state.round < when.round.min) return false;
    if (when.round.max !== undefined && state.round > when.round.max) return false;
  }
  return true;
}

type Scripted = Extract<TeamworkTask['teammates'][number], { kind: 'scripted' }>;

/** Index of the line the scripted teammate says now, or null (it stays silent this round). */
export function nextScriptedLine(mate: Scripted, arm: TeamArm, said: ReadonlySet<number>, state: BranchState): number | null {
  for (let i = 0; i < mate.lines.length; i++) {
    const line = mate.lines[i]!;
    if (said.has(i) || (line.arms && !line.arms.includes(arm))) continue;
    if (conditionHolds(line.when, state)) return i;
  }
  return null;
}

/**
 * The line a scripted teammate says now, marking it said in `said` (per teammate name); null when it stays
 * silent. Shared by model runs (runOne) and people in the seat (seat/seatReplay).
 */
export function sayScriptedLine(mate: Scripted, arm: TeamArm, said: Map<string, Set<number>>, state: BranchState): { index: number; text: string } | null {
  const done = said.get(mate.name) ?? new Set<number>();
  said.set(mate.name, done);
  const index = nextScriptedLine(mate, arm, done, state);
  if (index === null) return null;
  done.add(index);
  return { index, text: mate.lines[index]!.text };
}

export function environmentPosts(task: TeamworkTask, arm: TeamArm, round: number): Array<{ speaker: string; text: string }> {
  return task.environment
    .filter((seat) => seat.arms.includes(arm))
    .flatMap((seat) => seat.posts.filter((p) => p.round === round && (!p.arms || p.arms.includes(arm))).map((p) => ({ speaker: seat.name, text: p.text })));
}
