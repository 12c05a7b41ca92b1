/**
 * The group as the unit of analysis: one row per group, shaped like sessions.csv's table so the per-session tools
 * (cost definitions, within-task z, the condition comparison) run on groups unchanged.
 *   people tokens/turns = Σ over its people of their room messages; agent tokens/turns = Σ of the agents' (and of a
 *   researcher speaking as one); Q = the judge's score of the group's shared document (groups.csv `quality`, the
 *   median of its samples); a group without one (an older export, or a group judged before the judge scored
 *   groups) falls back to the median of its people's quality (each member submits the one shared document, so
 *   their judged scores are of the same artifact; the median keeps one stray judgement from moving it);
 *   Likert item = the mean of its people's answers. Each person's edits come from sessions.csv's group_edits.
 */
import { percentile } from '../../../lib/stats/percentile';
import { mean } from '../../../lib/stats/mean';
import type { SessionTable } from '../input/sessionsFile';
import type { GroupsFile } from './groupsFile';
import type { RoomCounts } from './roomMessages';

export interface GroupMember {
  sessionId: string;
  tokens: number;
  turns: number;
  /** NaN when the export has no group_edits column. */
  edits: number;
  quality: number;
}

export interface GroupUnits {
  /** Groups as rows (ids = group ids, sorted), in the session table's shape. */
  table: SessionTable;
  members: GroupMember[][];
  /** Judged members per group (those whose quality entered the median). */
  judgedMembers: number[];
  /** Whether groups.csv has a quality column (from schema 1.7.0 on). */
  groupQualityColumn: boolean;
  /** Scored groups whose Q is the median of their members' quality (no judge's score of the group in groups.csv). */
  nQualityFromMembers: number;
  researcherTurns: number[];
  /** Groups left out because a member of theirs was (pilot, unconsented, simulated). */
  excluded: string[];
  /** People of a group condition never seated in a group, by lobby outcome (released, left, waiting). */
  unseated: Record<string, number>;
}

export function groupUnits(people: SessionTable, rooms: ReadonlyMap<string, RoomCounts>, groupsFile: GroupsFile, excludedGroups: ReadonlySet<string>): GroupUnits {
  const rowsOf = new Map<string, number[]>();
  const unseated: Record<string, number> = {};
  people.ids.forEach((_, r) => {
    const g = people.groupIds[r];
    if (g === null || g === undefined) {
      const outcome = people.lobbyOutcomes[r] ?? 'waiting';
      unseated[outcome] = (unseated[outcome] ?? 0) + 1;
      return;
    }
    rowsOf.set(g, [...(rowsOf.get(g) ?? []), r]);
  });
  const ids = [...rowsOf.keys()].filter((g) => !excludedGroups.has(g)).sort();
  const excluded = [...excludedGroups].sort();
  const n = ids.length;
  const numbers = () => new Float64Array(n);
  const table: SessionTable = {
    ids,
    tasks: new Array<string>(n),
    conditions: new Array<string | null>(n),
    quality: numbers().fill(NaN),
    counts: { user_tokens: numbers(), agent_tokens: numbers(), user_turns: numbers(), agent_turns: numbers() },
    countsPresent: ['user_tokens', 'agent_tokens', 'user_turns', 'agent_turns'],
    likertItems: people.likertItems,
    likert: people.likertItems.map(() => numbers().fill(NaN)),
    excludedPilotIds: [],
    excludedUnconsentedIds: [],
    excludedSimulatedIds: [],
    simulatedColumn: people.simulatedColumn,
    excludedGroupIds: new Set(),
    groupIds: ids.slice(),
    lobbyOutcomes: ids.map(() => 'grouped'),
    groupEdits: numbers().fill(NaN),
  };
  const members: GroupMember[][] = [];
  const judgedMembers: number[] = [];
  const researcherTurns: number[] = [];
  let nQualityFromMembers = 0;
  ids.forEach((g, i) => {
    const rows = rowsOf.get(g)!;
    const room = rooms.get(g);
    const record = groupsFile.records.get(g);
    table.tasks[i] = record?.task ?? people.tasks[rows[0]!]!;
    table.conditions[i] = record ? record.condition : people.conditions[rows[0]!]!;
    const list = rows.map((r): GroupMember => {
      const counts = room?.people.get(people.ids[r]!) ?? { tokens: 0, turns: 0 };
      return { sessionId: people.ids[r]!, tokens: counts.tokens, turns: counts.turns, edits: people.groupEdits[r]!, quality: people.quality[r]! };
    });
    members.push(list);
    const judged = list.map((m) => m.quality).filter((q) => !Number.isNaN(q));
    judgedMembers.push(judged.length);
    researcherTurns.push(room?.researcherTurns ?? 0);
    const groupQuality = record?.quality ?? NaN;
    if (Number.isNaN(groupQuality) && judged.length) nQualityFromMembers++;
    table.quality[i] = !Number.isNaN(groupQuality) ? groupQuality : judged.length ? percentile(judged, 50) : NaN;
    table.counts.user_tokens[i] = list.reduce((s, m) => s + m.tokens, 0);
    table.counts.user_turns[i] = list.reduce((s, m) => s + m.turns, 0);
    table.counts.agent_tokens[i] = room?.agentTokens ?? 0;
    table.counts.agent_turns[i] = room?.agentTurns ?? 0;
    const edits = list.map((m) => m.edits);
    table.groupEdits[i] = edits.some(Number.isNaN) ? NaN : edits.reduce((s, e) => s + e, 0);
    people.likert.forEach((item, k) => {
      const answered = rows.map((r) => item[r]!).filter((v) => !Number.isNaN(v));
      table.likert[k]![i] = answered.length ? mean(answered) : NaN;
    });
  });
  return { table, members, judgedMembers, groupQualityColumn: groupsFile.qualityColumn, nQualityFromMembers, researcherTurns, excluded, unseated };
}
