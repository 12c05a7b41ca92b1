import type { SessionTable } from './sessionsFile';

/** The rows of `t` that `keep` marks, in file order (every column-wise array filtered alike; exclusion lists kept). */
export function subsetSessions(t: SessionTable, keep: readonly boolean[]): SessionTable {
  const rows: number[] = [];
  keep.forEach((k, r) => k && rows.push(r));
  const pick = <T>(values: readonly T[]) => rows.map((r) => values[r]!);
  const pickNumbers = (values: Float64Array) => Float64Array.from(rows, (r) => values[r]!);
  return {
    ...t,
    ids: pick(t.ids),
    tasks: pick(t.tasks),
    conditions: pick(t.conditions),
    quality: pickNumbers(t.quality),
    counts: {
      user_tokens: pickNumbers(t.counts.user_tokens),
      agent_tokens: pickNumbers(t.counts.agent_tokens),
      user_turns: pickNumbers(t.counts.user_turns),
      agent_turns: pickNumbers(t.counts.agent_turns),
    },
    likert: t.likert.map(pickNumbers),
    groupIds: pick(t.groupIds),
    lobbyOutcomes: pick(t.lobbyOutcomes),
    groupEdits: pickNumbers(t.groupEdits),
  };
}

/** Whether a row belongs to a group condition: seated in a group, or sent to a lobby (released, left, waiting). */
export const inGroupCondition = (t: SessionTable, r: number): boolean => t.groupIds[r] !== null || t.lobbyOutcomes[r] !== null;
