/**
 * `judge` on an exported dataset directory: judges the latest artifact of every session and writes
 * judgements.csv (the contract columns), judgements.jsonl (every sample with all audit fields) and
 * quality.csv (session_id, quality, samples, parsed). Replies are cached in
 * <dir>/.judge-cache.sqlite, so a rerun costs no new calls. When interrupted, nothing is written
 * (the cache keeps every finished reply) and a rerun resumes.
 */
import { join } from 'node:path';
import { openFileReplyCache, REPLY_CACHE_FILE_NAME } from '../../lib/storage';
import type { LlmProvider } from '../../lib/llm/provider';
import { CachedModelClient, type ProviderInfo } from './cachedModelClient';
import { writeCsv, writeJsonl } from './csvFiles';
import { readDatasetSessions, type StudyTaskInfo } from './datasetSource';
import { medianScore } from './quality';
import type { LoadedRubric } from '../../lib/studyFiles/rubricFiles';
import { runJudge, type JudgeProgress, type JudgeSample, type JudgeSettings } from './runJudge';
import { judgeTargets } from './targets';

export const JUDGE_CACHE_FILE = REPLY_CACHE_FILE_NAME;
/** The contract columns, plus artifact_version last (as the study exporter writes it). */
export const JUDGEMENT_CSV_COLUMNS = ['session_id', 'rubric_id', 'rubric_hash', 'model', 'sample', 'score', 'parse_ok', 'cached', 'artifact_version', 'images'] as const;
export const QUALITY_CSV_COLUMNS = ['session_id', 'quality', 'samples', 'parsed'] as const;

export interface JudgeDatasetOptions {
  dir: string;
  rubrics: Map<string, LoadedRubric>;
  rubricFlag?: string;
  studyTasks?: Map<string, StudyTaskInfo>;
  settings: JudgeSettings;
  provider: LlmProvider;
  providerInfo: ProviderInfo;
  signal?: AbortSignal;
  onProgress?: (p: JudgeProgress) => void;
}

export interface JudgeDatasetResult {
  interrupted: boolean;
  samples: JudgeSample[];
  total: number;
  stats: CachedModelClient['stats'];
}

export function sortSamples(samples: JudgeSample[]): JudgeSample[] {
  return [...samples].sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.sample - b.sample));
}

export function judgementCsvRow(s: JudgeSample, artifactVersion: number | null): Record<string, unknown> {
  return {
    session_id: s.sessionId,
    rubric_id: s.rubricId,
    rubric_hash: s.rubricHash,
    model: s.reportedModel ?? s.requestedModel,
    sample: s.sample,
    score: s.score,
    parse_ok: s.parseOk,
    cached: s.cached,
    artifact_version: artifactVersion,
    // As the exporter writes it: a JSON list of {field, mediaType, bytes, sha256}; empty when text-only.
    images: s.images === undefined ? null : JSON.stringify(s.images),
  };
}

export async function judgeDataset(options: JudgeDatasetOptions): Promise<JudgeDatasetResult> {
  const materials = readDatasetSessions(options.dir, options.studyTasks);
  const targets = judgeTargets(materials, options.rubrics, options.rubricFlag, options.settings.images);
  const cache = openFileReplyCache(join(options.dir, JUDGE_CACHE_FILE));
  try {
    const client = new CachedModelClient(options.provider, options.providerInfo, cache);
    const run = await runJudge(targets, options.settings, client, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const total = targets.length * options.settings.samples;
    if (run.interrupted) return { interrupted: true, samples: run.samples, total, stats: client.stats };

    const samples = sortSamples(run.samples);
    const versionOf = new Map(materials.map((m) => [m.sessionId, m.artifact?.version ?? null]));
    writeCsv(join(options.dir, 'judgements.csv'), JUDGEMENT_CSV_COLUMNS, samples.map((s) => judgementCsvRow(s, versionOf.get(s.sessionId) ?? null)));
    writeJsonl(join(options.dir, 'judgements.jsonl'), samples);
    const bySession = new Map<string, JudgeSample[]>();
    for (const s of samples) bySession.set(s.sessionId, [...(bySession.get(s.sessionId) ?? []), s]);
    writeCsv(
      join(options.dir, 'quality.csv'),
      QUALITY_CSV_COLUMNS,
      materials.map((m) => {
        const own = bySession.get(m.sessionId) ?? [];
        return {
          session_id: m.sessionId,
          quality: medianScore(own.map((s) => s.score)),
          samples: own.length,
          parsed: own.filter((s) => s.parseOk).length,
        };
      }),
    );
    return { interrupted: false, samples, total, stats: client.stats };
  } finally {
    await cache.close();
  }
}
