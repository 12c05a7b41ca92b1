/**
 * groups.csv (one row per group; docs/groups.md): each group's condition and task, as the export recorded them, and
 * the judge's score of its shared document (`quality`, schema 1.7.0; older exports have no such column).
 */
import { existsSync } from 'node:fs';
import { readCsvTable, requireColumns } from '../input/csvTable';
import { DatasetError } from '../input/datasetError';
import { optionalNumber } from '../input/cells';

export interface GroupRecord {
  condition: string | null;
  task: string;
  /** People seated when the group formed. */
  sizeAtStart: number | null;
  agents: string[];
  /** The judge's score of the group's shared document; NaN when unjudged or without the column. */
  quality: number;
}

export interface GroupsFile {
  records: Map<string, GroupRecord>;
  /** Whether groups.csv has the `quality` column (exports from schema 1.7.0 on). */
  qualityColumn: boolean;
}

/** The groups of groups.csv by group_id; no groups when the file is absent (older exports). */
export function readGroupsFile(path: string): GroupsFile {
  const out = new Map<string, GroupRecord>();
  if (!existsSync(path)) return { records: out, qualityColumn: false };
  const table = readCsvTable(path);
  const col = requireColumns(table, ['group_id', 'task']);
  const conditionIndex = table.header.indexOf('condition');
  const sizeIndex = table.header.indexOf('size_at_start');
  const agentsIndex = table.header.indexOf('agents');
  const qualityIndex = table.header.indexOf('quality');
  table.rows.forEach((row, r) => {
    const line = table.lines[r]!;
    const id = (row[col.group_id!] ?? '').trim();
    const task = (row[col.task!] ?? '').trim();
    if (id === '') throw new DatasetError(table.file, line, 'group_id', 'value is empty');
    if (task === '') throw new DatasetError(table.file, line, 'task', 'value is empty');
    if (out.has(id)) throw new DatasetError(table.file, line, 'group_id', `duplicate group id "${id}"`);
    const size = sizeIndex >= 0 ? (row[sizeIndex] ?? '').trim() : '';
    if (size !== '' && !/^\d+$/.test(size)) throw new DatasetError(table.file, line, 'size_at_start', `not a whole number (got ${JSON.stringify(size)})`);
    const agents = agentsIndex >= 0 ? (row[agentsIndex] ?? '').trim() : '';
    const quality = optionalNumber.safeParse(qualityIndex >= 0 ? (row[qualityIndex] ?? '') : '');
    if (!quality.success) throw new DatasetError(table.file, line, 'quality', `${quality.error.issues[0]!.message} (got ${JSON.stringify((row[qualityIndex] ?? '').trim())})`);
    out.set(id, {
      condition: conditionIndex >= 0 ? (row[conditionIndex] ?? '').trim() || null : null,
      task,
      sizeAtStart: size === '' ? null : Number(size),
      agents: agents === '' ? [] : agents.split(';'),
      quality: quality.data,
    });
  });
  return { records: out, qualityColumn: qualityIndex >= 0 };
}
