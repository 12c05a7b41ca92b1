import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetError, EXCLUDED_SESSION } from './datasetError';
import { readSessionsFile, COUNT_COLUMNS, type SessionTable } from './sessionsFile';
import { readAnnotationsFile, type AnnotationTable } from './annotationsFile';
import { countsFromMessages } from './messagesFile';
import { applyQualityFile } from './qualityFile';

export interface Dataset {
  sessions: SessionTable;
  annotations: AnnotationTable | null;
  /** Where the token/turn counts came from. */
  countsSource: 'sessions.csv' | 'messages.jsonl';
  /** Sessions whose quality came from quality.csv. */
  judgedQuality: number;
}

/**
 * Loads a dataset directory in the export layout: sessions.csv (required), quality.csv (judge output,
 * overrides quality), annotations.csv (optional), messages.jsonl (for counts when sessions.csv lacks them).
 * Pilot sessions are left out (with their rows in the other files) unless `includePilot`, and visits that
 * never answered the consent unless `includeUnconsented`.
 */
export function loadDataset(dir: string, options: { includePilot?: boolean; includeUnconsented?: boolean } = {}): Dataset {
  const sessionsPath = join(dir, 'sessions.csv');
  if (!existsSync(sessionsPath)) throw new DatasetError('sessions.csv', null, null, `not found in ${dir}`);
  const sessions = readSessionsFile(sessionsPath, options);
  const index = new Map<string, number>();
  sessions.ids.forEach((id, i) => index.set(id, i));
  for (const id of [...sessions.excludedPilotIds, ...sessions.excludedUnconsentedIds]) index.set(id, EXCLUDED_SESSION);

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
  const annotationsPath = join(dir, 'annotations.csv');
  const annotations = existsSync(annotationsPath) ? readAnnotationsFile(annotationsPath, index) : null;
  return { sessions, annotations, countsSource, judgedQuality };
}
