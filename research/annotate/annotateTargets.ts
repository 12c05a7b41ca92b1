/**
 * `annotate` on a dataset directory or a study: reads the sessions, labels every utterance and writes
 * the results — annotations.csv (session_id, turn, speaker, friction, grounding `;`-joined; the layout
 * `analyze` reads) plus annotations.jsonl (every utterance with method and provenance) for a dataset
 * directory, or the `annotations` table for a study. Utterances that could not be labelled are left
 * out of annotations.csv (listed in annotations.jsonl with method "failed") rather than guessed.
 * Replies are cached in <dir>/.judge-cache.sqlite, shared with the judge.
 */
import { join } from 'node:path';
import type { Store } from '../../lib/storage';
import { openFileReplyCache } from '../../lib/storage';
import type { LlmProvider } from '../../lib/llm/provider';
import { CachedModelClient, type ProviderInfo } from '../judge/cachedModelClient';
import { writeCsv, writeJsonl } from '../judge/csvFiles';
import { readDatasetSessions } from '../judge/datasetSource';
import { JUDGE_CACHE_FILE } from '../judge/judgeDataset';
import { readStudySessions } from '../judge/studySource';
import type { AnnotationGuide } from './guide';
import { runAnnotate, type AnnotateProgress, type AnnotateSettings, type UtteranceAnnotation } from './runAnnotate';

export const ANNOTATION_CSV_COLUMNS = ['session_id', 'turn', 'speaker', 'friction', 'grounding'] as const;

export interface AnnotateCommon {
  guide: AnnotationGuide;
  settings: AnnotateSettings;
  provider: LlmProvider;
  providerInfo: ProviderInfo;
  signal?: AbortSignal;
  onProgress?: (p: AnnotateProgress) => void;
}

export interface AnnotateOutcome {
  interrupted: boolean;
  annotations: UtteranceAnnotation[];
  stats: CachedModelClient['stats'];
}

export function annotationCsvRow(a: UtteranceAnnotation): Record<string, unknown> {
  return { session_id: a.sessionId, turn: a.turn, speaker: a.speaker, friction: a.friction, grounding: a.grounding.join(';') };
}

export async function annotateDataset(dir: string, options: AnnotateCommon): Promise<AnnotateOutcome> {
  const sessions = readDatasetSessions(dir);
  const cache = openFileReplyCache(join(dir, JUDGE_CACHE_FILE));
  try {
    const client = new CachedModelClient(options.provider, options.providerInfo, cache);
    const run = await runAnnotate(sessions, options.settings, options.guide, client, hooksOf(options));
    if (!run.interrupted) {
      writeCsv(join(dir, 'annotations.csv'), ANNOTATION_CSV_COLUMNS, run.annotations.filter((a) => a.friction !== null).map(annotationCsvRow));
      writeJsonl(join(dir, 'annotations.jsonl'), run.annotations);
    }
    return { ...run, stats: client.stats };
  } finally {
    await cache.close();
  }
}

export async function annotateStudy(store: Store, dataDir: string, studyId: string, options: AnnotateCommon): Promise<AnnotateOutcome> {
  if (!(await store.studies.get(studyId))) throw new Error(`study "${studyId}" is not in the database ${store.description}`);
  const sessions = await readStudySessions(store, dataDir, studyId);
  const repo = store.annotations;
  const cache = await store.openReplyCache();
  try {
    const client = new CachedModelClient(options.provider, options.providerInfo, cache);
    const run = await runAnnotate(sessions, options.settings, options.guide, client, {
      ...hooksOf(options),
      // Stored chunk by chunk, so an interrupted run keeps what finished.
      onChunk: (labels) => repo.upsertMany(labels.map((a) => ({ ...a, createdAt: Date.now() }))),
    });
    return { ...run, stats: client.stats };
  } finally {
    await cache.close();
  }
}

function hooksOf(options: AnnotateCommon) {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}
