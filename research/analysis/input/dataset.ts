import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetError, EXCLUDED_SESSION } from './datasetError';
import { readSessionsFile, COUNT_COLUMNS, type SessionTable } from './sessionsFile';
import type { AnnotationTable } from './annotationsFile';
import { readAnnotations } from './parallelAnnotations';
import { countsFromMessages } from './messagesFile';
import { applyQualityFile } from './qualityFile';
import { inGroupCondition, subsetSessions } from './subsetSessions';

export interface Dataset {
  sessions: SessionTable;
  annotations: AnnotationTable | null;
  /** Where the token/turn counts came from. */
  countsSource: 'sessions.csv' | 'messages.jsonl';
  /** Sessions whose quality came from quality.csv. */
  judgedQuality: number;
  /**
   * The sessions of group conditions (seated in a group or sent to a lobby), analysed with the group as the unit
   * (groups/) and left out of `sessions`; null when the dataset has none (a single-person study, as before).
   */
  groupSessions: SessionTable | null;
}

/**
 * Loads a dataset directory in the export layout: sessions.csv (required), quality.csv (judge output,
 * overrides quality), annotations.csv (optional), messages.jsonl (for counts when sessions.csv lacks them).
 * Pilot sessions are left out (with their rows in the other files) unless `includePilot`, and visits that
 * never answered the consent unless `includeUnconsented`.
 */
export function loadDataset(dir: string, options: { includePilot?: boolean; includeUnconsented?: boolean; includeSimulated?: boolean } = {}): Dataset {
  const sessionsPath = join(dir, 'sessions.csv');
  if (!existsSync(sessionsPath)) throw new DatasetError('sessions.csv', null, null, `not found in ${dir}`);
  const all = readSessionsFile(sessionsPath, options);
  const index = new Map<string, number>();
  all.ids.forEach((id, i) => index.set(id, i));
  for (const id of [...all.excludedPilotIds, ...all.excludedUnconsentedIds, ...all.excludedSimulatedIds]) index.set(id, EXCLUDED_SESSION);
  let sessions = all;

  let countsSource: Dataset['countsSource'] = 'sessions.csv';
  if (sessions.countsPresent.length < COUNT_COLUMNS.length) {
    const messagesPath = join(dir, 'messages.jsonl');
    const missing = COUNT_COLUMNS.filter((c) => !sessions.countsPresent.includes(c));
    if (!existsSync(messagesPath)) {
      throw new DatasetError('sessions.csv', 1, missing[0]!, 'missing column and no messages.jsonl to compute it from');
    }
    const computed = countsFromMessages(messagesPath, index, sessions.ids.length);
    for (const c of missing) sessions.counts[c] = computed[c];
    countsSource = 'messages.jsonl';
  }

  const qualityPath = join(dir, 'quality.csv');
  const judgedQuality = existsSync(qualityPath) ? applyQualityFile(qualityPath, index, sessions.quality) : 0;
  // Group conditions are analysed per group: their sessions leave the per-session table (and its annotations).
  const grouped = all.ids.map((_, r) => inGroupCondition(all, r));
  let groupSessions: SessionTable | null = null;
  if (grouped.some(Boolean)) {
    groupSessions = subsetSessions(all, grouped);
    sessions = subsetSessions(all, grouped.map((g) => !g));
    index.clear();
    sessions.ids.forEach((id, i) => index.set(id, i));
    for (const id of [...all.excludedPilotIds, ...all.excludedUnconsentedIds, ...all.excludedSimulatedIds, ...groupSessions.ids]) index.set(id, EXCLUDED_SESSION);
  }
  const annotationsPath = join(dir, 'annotations.csv');
  const annotations = existsSync(annotationsPath) ? readAnnotations(annotationsPath, index) : null;
  return { sessions, annotations, countsSource, judgedQuality, groupSessions };
}
