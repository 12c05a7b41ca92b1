import { z } from 'zod';
import { DatasetError } from './datasetError';
import { basename } from 'node:path';
import { forEachCsvRow } from './csvLines';
import { NUMERIC, nonNegativeCount, optionalNumber, requiredText } from './cells';

export const COUNT_COLUMNS = ['user_tokens', 'agent_tokens', 'user_turns', 'agent_turns'] as const;
export type CountColumn = (typeof COUNT_COLUMNS)[number];

/** sessions.csv held column-wise; NaN marks a missing number. */
export interface SessionTable {
  ids: string[];
  tasks: string[];
  conditions: Array<string | null>;
  quality: Float64Array;
  counts: Record<CountColumn, Float64Array>;
  /** Count columns that were present in the file (others must come from messages.jsonl). */
  countsPresent: CountColumn[];
  likertItems: string[];
  likert: Float64Array[];
  /** Sessions with is_pilot = true that were left out (analysis without --include-pilot). */
  excludedPilotIds: string[];
  /**
   * Visits that never answered the consent (empty consented_at, status not declined: in an export made with
   * --include-unconsented) that were left out (analysis without --include-unconsented).
   */
  excludedUnconsentedIds: string[];
  /** Sessions the simulator played (simulated = true) left out (analysis without --include-simulated). */
  excludedSimulatedIds: string[];
  /** Whether the file has a `simulated` column (exports from schema 1.5 on). */
  simulatedColumn: boolean;
  /** Groups (group_id) of left-out rows: a group with a left-out member is left out of the group analysis. */
  excludedGroupIds: Set<string>;
  /** The group columns of an export with group sessions (docs/groups.md); null per row outside groups. */
  groupIds: Array<string | null>;
  lobbyOutcomes: Array<string | null>;
  /** Shared-document updates the person made (group_edits); NaN when the column is absent or empty. */
  groupEdits: Float64Array;
}

const rowSchema = z.object({
  session_id: requiredText,
  task: requiredText,
  quality: optionalNumber,
  user_tokens: nonNegativeCount,
  agent_tokens: nonNegativeCount,
  user_turns: nonNegativeCount,
  agent_turns: nonNegativeCount,
});

/**
 * Reads and validates sessions.csv. Required: session_id, task. Optional: quality (any numeric scale,
 * empty = unscored), condition, the four count columns (all or none; computed from messages.jsonl when
 * absent) and any likert_<item> columns. Rows with is_pilot = true are left out unless `includePilot`.
 * Throws DatasetError naming file, line and column.
 *
 * Each row is checked with plain tests that mirror the zod cell schemas (fast for 100k rows); when a row
 * fails them, the zod row schema is run on it to produce the error message.
 */
export function readSessionsFile(path: string, options: { includePilot?: boolean; includeUnconsented?: boolean; includeSimulated?: boolean } = {}): SessionTable {
  const file = basename(path);
  let rows: string[][] = [];
  let lines: number[] = [];
  let header: string[] | null = null;
  try {
    forEachCsvRow(path, (fields, line) => {
      if (header === null) header = fields.map((h) => h.trim());
      else {
        if (fields.length !== header.length) {
          throw new DatasetError(file, line, null, `expected ${header.length} fields like the header, got ${fields.length}`);
        }
        rows.push(fields);
        lines.push(line);
      }
    });
  } catch (error) {
    if (error instanceof DatasetError) throw error;
    const line = (error as { lines?: number }).lines ?? null;
    const what = line === null ? 'cannot read file' : 'malformed CSV';
    throw new DatasetError(file, line, null, `${what} (${(error as Error).message})`);
  }
  if (header === null) throw new DatasetError(file, 1, null, 'file is empty (no header row)');
  const head: string[] = header;
  for (const name of ['session_id', 'task']) {
    if (!head.includes(name)) throw new DatasetError(file, 1, name, `missing required column (header has: ${head.join(', ')})`);
  }
  const groupIdIndex = head.indexOf('group_id');
  const excludedGroupIds = new Set<string>();
  /** Drops the rows `leaveOut` picks, returning their session ids (and noting their groups). */
  const dropRows = (leaveOut: (raw: string[]) => boolean): string[] => {
    const idColumn = head.indexOf('session_id');
    const keep = rows.map((raw) => !leaveOut(raw));
    const dropped: string[] = [];
    rows.forEach((raw, r) => {
      if (keep[r]) return;
      dropped.push((raw[idColumn] ?? '').trim());
      const group = groupIdIndex >= 0 ? (raw[groupIdIndex] ?? '').trim() : '';
      if (group !== '') excludedGroupIds.add(group);
    });
    rows = rows.filter((_, r) => keep[r]);
    lines = lines.filter((_, r) => keep[r]);
    return dropped;
  };
  // Pilot sessions (an export made with --include-pilot) are left out unless asked for, as everywhere else.
  const pilotIndex = head.indexOf('is_pilot');
  const excludedPilotIds = pilotIndex >= 0 && !options.includePilot ? dropRows((raw) => PILOT_TRUE.test((raw[pilotIndex] ?? '').trim())) : [];
  // So are visits that never answered the consent (an export made with --include-unconsented); a decline is an answer.
  const consentedIndex = head.indexOf('consented_at');
  const statusIndex = head.indexOf('status');
  const excludedUnconsentedIds =
    consentedIndex >= 0 && statusIndex >= 0 && !options.includeUnconsented
      ? dropRows((raw) => (raw[consentedIndex] ?? '').trim() === '' && (raw[statusIndex] ?? '').trim() !== 'declined')
      : [];
  // And sessions the simulator played (npm run simulate --agent-participants), unless --include-simulated.
  const simulatedIndex = head.indexOf('simulated');
  const excludedSimulatedIds = simulatedIndex >= 0 && !options.includeSimulated ? dropRows((raw) => PILOT_TRUE.test((raw[simulatedIndex] ?? '').trim())) : [];
  const countsPresent = COUNT_COLUMNS.filter((c) => head.includes(c));
  const qualityIndex = head.indexOf('quality');
  const conditionIndex = head.indexOf('condition');
  const likertColumns = head.filter((h) => h.startsWith('likert_') && h.length > 'likert_'.length);
  const shape: Record<string, z.ZodType> = { session_id: rowSchema.shape.session_id, task: rowSchema.shape.task };
  if (qualityIndex >= 0) shape.quality = rowSchema.shape.quality;
  for (const c of countsPresent) shape[c] = rowSchema.shape[c];
  for (const h of likertColumns) shape[h] = optionalNumber;
  const schema = z.object(shape);
  const col = (name: string) => head.indexOf(name);
  const idIndex = col('session_id');
  const taskIndex = col('task');
  const countIndex = countsPresent.map(col);
  const likertIndex = likertColumns.map(col);

  const n = rows.length;
  const out: SessionTable = {
    ids: new Array<string>(n),
    tasks: new Array<string>(n),
    conditions: new Array<string | null>(n),
    quality: new Float64Array(n).fill(NaN),
    counts: {
      user_tokens: new Float64Array(n),
      agent_tokens: new Float64Array(n),
      user_turns: new Float64Array(n),
      agent_turns: new Float64Array(n),
    },
    countsPresent,
    likertItems: likertColumns.map((h) => h.slice('likert_'.length)),
    likert: likertColumns.map(() => new Float64Array(n)),
    excludedPilotIds,
    excludedUnconsentedIds,
    excludedSimulatedIds,
    simulatedColumn: simulatedIndex >= 0,
    excludedGroupIds,
    groupIds: new Array<string | null>(n).fill(null),
    lobbyOutcomes: new Array<string | null>(n).fill(null),
    groupEdits: new Float64Array(n).fill(NaN),
  };
  const lobbyIndex = head.indexOf('lobby_outcome');
  const editsIndex = head.indexOf('group_edits');
  const seen = new Map<string, number>();
  const fail = (raw: string[], line: number): never => {
    const record: Record<string, string> = {};
    for (const key of Object.keys(shape)) record[key] = raw[col(key)] ?? '';
    const parsed = schema.safeParse(record);
    const issue = parsed.success ? null : parsed.error.issues[0]!;
    const column = issue ? String(issue.path[0] ?? '') : null;
    throw new DatasetError(file, line, column, issue ? `${issue.message} (got ${JSON.stringify(record[column!] ?? '')})` : 'invalid row');
  };
  for (let r = 0; r < n; r++) {
    const raw = rows[r]!;
    const line = lines[r]!;
    const id = (raw[idIndex] ?? '').trim();
    const task = (raw[taskIndex] ?? '').trim();
    if (id === '' || task === '') fail(raw, line);
    if (qualityIndex >= 0) {
      const q = optionalNumberFast(raw[qualityIndex]);
      if (q === undefined) fail(raw, line);
      out.quality[r] = q!;
    }
    for (let k = 0; k < countsPresent.length; k++) {
      const v = optionalNumberFast(raw[countIndex[k]!]);
      if (v === undefined || !(v >= 0)) fail(raw, line);
      if (!Number.isInteger(v)) {
        // tokens and turns are counts: 12.5 is a unit or export error, not a value to analyse
        throw new DatasetError(file, line, countsPresent[k]!, `not a whole number (got ${JSON.stringify((raw[countIndex[k]!] ?? '').trim())}): token and turn columns are counts`);
      }
      out.counts[countsPresent[k]!][r] = v!;
    }
    for (let k = 0; k < likertColumns.length; k++) {
      const v = optionalNumberFast(raw[likertIndex[k]!]);
      if (v === undefined) fail(raw, line);
      out.likert[k]![r] = v!;
    }
    const previous = seen.get(id);
    if (previous !== undefined) {
      throw new DatasetError(file, line, 'session_id', `duplicate session id "${id}" (first on line ${previous})`);
    }
    seen.set(id, line);
    out.ids[r] = id;
    out.tasks[r] = task;
    out.conditions[r] = conditionIndex >= 0 ? (raw[conditionIndex] ?? '').trim() || null : null;
    if (groupIdIndex >= 0) out.groupIds[r] = (raw[groupIdIndex] ?? '').trim() || null;
    if (lobbyIndex >= 0) out.lobbyOutcomes[r] = (raw[lobbyIndex] ?? '').trim() || null;
    if (editsIndex >= 0) {
      const v = optionalNumberFast(raw[editsIndex]);
      if (v === undefined || !(Number.isNaN(v) || (v >= 0 && Number.isInteger(v))))
        throw new DatasetError(file, line, 'group_edits', `not a whole number ≥ 0 (got ${JSON.stringify((raw[editsIndex] ?? '').trim())})`);
      out.groupEdits[r] = v;
    }
  }
  return out;
}

const PILOT_TRUE = /^(true|1|yes)$/i;

/** '' → NaN, a number → its value, anything else → undefined (mirrors `optionalNumber`). */
function optionalNumberFast(raw: string | undefined): number | undefined {
  const s = (raw ?? '').trim();
  if (s === '') return NaN;
  return NUMERIC.test(s) ? Number(s) : undefined;
}
