/**
 * summary.json's `groups` section: collaborative productivity with the group as the unit (design.md: "In a group
 * study the unit is the group"). C = Σ people's tokens + λ · Σ agent tokens (or the run's other cost definition over
 * the group's counts), Q of the group's shared artifact (the judge's score of it, else its members'; groupUnits.ts), Pz = z(Q) − z(C) within task over groups
 * (sample SD; SD 0 → z 0; a task's only scored group has none), each member's share of the people's tokens and of
 * the document's edits, and the condition comparison of research/analysis/conditions with groups as the unit.
 */
import { interactionCost, type CostDefinition } from '../productivity/costDefinitions';
import { scoredByTask } from '../productivity/taskGroups';
import { quadrantOrNull, withinTaskProductivity, type Quadrant } from '../productivity/withinTaskZ';
import { qualityCostSpearman } from '../productivity/taskCorrelations';
import { conditionSection, type ConditionSection } from '../conditions/conditionSection';
import type { Correlation } from '../../../lib/stats/spearman';
import type { GroupUnits } from './groupUnits';

export interface GroupMemberResult {
  tokens: number;
  turns: number;
  /** The member's tokens / the group's people's tokens; null when the people wrote nothing. */
  token_share: number | null;
  /** Shared-document updates; null without a group_edits column. */
  edits: number | null;
  /** The member's edits / all the group's people's edits; null when there were none (or no column). */
  edit_share: number | null;
  quality: number | null;
}

export interface GroupResult {
  task: string;
  condition: string | null;
  /** People of the group in the dataset. */
  size: number;
  people_tokens: number;
  agent_tokens: number;
  people_turns: number;
  agent_turns: number;
  /** Of agent_turns, messages a researcher wrote as an agent. */
  researcher_turns: number;
  edits: number | null;
  /** The judge's score of the shared document (groups.csv), else the median of the members' judged quality; null when neither. */
  quality: number | null;
  n_judged_members: number;
  cost: number;
  z_quality: number | null;
  z_cost: number | null;
  pz: number | null;
  quadrant: Quadrant | null;
  members: Record<string, GroupMemberResult>;
}

export interface GroupSection {
  unit: 'group';
  lambda: number;
  cost_definition: CostDefinition;
  n_groups: number;
  n_scored: number;
  n_unscored: number;
  /**
   * Scored groups whose Q is the median of their members' quality because groups.csv has no judge's score for them;
   * present only when groups.csv has a quality column (in an older export every group's Q comes from its members).
   */
  n_quality_from_members?: number;
  /** People (sessions) in the analysed groups. */
  n_people: number;
  /** People of a group condition never seated in a group, by lobby outcome. */
  n_unseated: Record<string, number>;
  /** Groups left out because one of their people was (pilot, unconsented or simulated without the flags). */
  n_groups_excluded: number;
  groups: Record<string, GroupResult>;
  tasks: Record<string, { n: number; spearman_qc: Correlation | null }>;
  conditions: ConditionSection;
  warnings: string[];
}

const orNull = (x: number) => (Number.isNaN(x) ? null : x);

/** The analysis settings the group section uses (a subset of summary.ts's AnalysisOptions). */
export interface GroupAnalysisOptions {
  lambda: number;
  cost: CostDefinition;
  bootstrapReplicates: number;
  bootstrapSeed: number;
}

export function groupSection(units: GroupUnits, options: GroupAnalysisOptions): GroupSection {
  const t = units.table;
  const cost = interactionCost(options.cost, t.counts, options.lambda);
  const byTask = scoredByTask(t.tasks, t.quality);
  const p = withinTaskProductivity(byTask, t.quality, cost);
  const groups: Record<string, GroupResult> = {};
  t.ids.forEach((id, i) => {
    const people = t.counts.user_tokens[i]!;
    const edits = t.groupEdits[i]!;
    const members: Record<string, GroupMemberResult> = {};
    for (const m of units.members[i]!) {
      members[m.sessionId] = {
        tokens: m.tokens,
        turns: m.turns,
        token_share: people > 0 ? m.tokens / people : null,
        edits: orNull(m.edits),
        edit_share: edits > 0 ? m.edits / edits : null,
        quality: orNull(m.quality),
      };
    }
    groups[id] = {
      task: t.tasks[i]!,
      condition: t.conditions[i]!,
      size: units.members[i]!.length,
      people_tokens: people,
      agent_tokens: t.counts.agent_tokens[i]!,
      people_turns: t.counts.user_turns[i]!,
      agent_turns: t.counts.agent_turns[i]!,
      researcher_turns: units.researcherTurns[i]!,
      edits: orNull(edits),
      quality: orNull(t.quality[i]!),
      n_judged_members: units.judgedMembers[i]!,
      cost: cost[i]!,
      z_quality: orNull(p.zQuality[i]!),
      z_cost: orNull(p.zCost[i]!),
      pz: orNull(p.pz[i]!),
      quadrant: quadrantOrNull(p.zQuality[i]!, p.zCost[i]!),
      members,
    };
  });
  const tasks: GroupSection['tasks'] = {};
  for (const [task, idx] of byTask) tasks[task] = { n: idx.length, spearman_qc: qualityCostSpearman(idx, t.quality, cost) };
  const conditions = conditionSection(
    { sessions: t, scored: (i) => !Number.isNaN(t.quality[i]!), cost, pz: p.pz, quadrant: (i) => quadrantOrNull(p.zQuality[i]!, p.zCost[i]!) },
    { replicates: options.bootstrapReplicates, seed: options.bootstrapSeed },
  );
  const nScored = [...byTask.values()].reduce((s, idx) => s + idx.length, 0);
  const warnings: string[] = [];
  if (t.ids.length > 0 && nScored === 0) warnings.push(`no scored group (no member's artifact has a quality for any of the ${t.ids.length} groups): group z and Pz are empty`);
  const solo = [...byTask].filter(([, idx]) => idx.length === 1).map(([task]) => task);
  if (solo.length) warnings.push(`task(s) with one scored group: ${solo.join(', ')} — its z, Pz and quadrant are null`);
  if (units.groupQualityColumn && units.nQualityFromMembers > 0) {
    warnings.push(`${units.nQualityFromMembers} scored group(s) without the judge's score of the shared document in groups.csv: their Q is the median of their members' judged quality`);
  }
  if (conditions.names.length > 0) warnings.push(...conditions.notes.map((note) => `group condition comparison: ${note}`));
  return {
    unit: 'group',
    lambda: options.lambda,
    cost_definition: options.cost,
    n_groups: t.ids.length,
    n_scored: nScored,
    n_unscored: t.ids.length - nScored,
    ...(units.groupQualityColumn ? { n_quality_from_members: units.nQualityFromMembers } : {}),
    n_people: units.members.reduce((s, m) => s + m.length, 0),
    n_unseated: units.unseated,
    n_groups_excluded: units.excluded.length,
    groups,
    tasks,
    conditions,
    warnings,
  };
}
