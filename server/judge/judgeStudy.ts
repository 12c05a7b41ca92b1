/**
 * `judge --study <id>`: judges the latest artifact of every session of a study in the database,
 * storing each sample in `judgements` as soon as it finishes (an interrupted run keeps them) and
 * the per-session quality Q in `judge_quality` once all samples of a session are in. With
 * `--images attach` a sample's row lists the images it showed the model (`images`, as in a
 * dataset's judgements.jsonl); text-only samples leave it NULL.
 * Replies are cached in <dataDir>/.judge-cache.sqlite.
 */
import { join } from 'node:path';
import { JudgementsRepository, ModelReplyCache } from '../db/repositories/judgements';
import type { Store } from '../db/store';
import type { LlmProvider } from '../llm/provider';
import { CachedModelClient, type ProviderInfo } from './cachedModelClient';
import { JUDGE_CACHE_FILE } from './judgeDataset';
import { medianScore } from './quality';
import type { LoadedRubric } from './rubricFiles';
import { runJudge, type JudgeProgress, type JudgeSample, type JudgeSettings } from './runJudge';
import { readStudySessions, type StudyTaskDefinition } from './studySource';
import { judgeTargets } from './targets';

export interface JudgeStudyOptions {
  store: Store;
  dataDir: string;
  studyId: string;
  tasks: readonly StudyTaskDefinition[];
  rubrics: Map<string, LoadedRubric>;
  rubricFlag?: string;
  settings: JudgeSettings;
  provider: LlmProvider;
  providerInfo: ProviderInfo;
  signal?: AbortSignal;
  onProgress?: (p: JudgeProgress) => void;
}

export async function judgeStudy(options: JudgeStudyOptions) {
  if (!options.store.studies.get(options.studyId)) throw new Error(`study "${options.studyId}" is not in the database ${options.store.file}`);
  const materials = readStudySessions(options.store, options.studyId, options.tasks);
  const versionOf = new Map(materials.map((m) => [m.sessionId, m.artifact?.version ?? 0]));
  const targets = judgeTargets(materials, options.rubrics, options.rubricFlag, options.settings.images);
  const repo = new JudgementsRepository(options.store.db);
  const cache = ModelReplyCache.open(join(options.dataDir, JUDGE_CACHE_FILE));
  const done = new Map<string, JudgeSample[]>();
  try {
    const client = new CachedModelClient(options.provider, options.providerInfo, cache);
    const run = await runJudge(targets, options.settings, client, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      onSample: (s) => {
        const artifactVersion = versionOf.get(s.sessionId) ?? 0;
        repo.upsert({ ...s, artifactVersion, createdAt: Date.parse(s.createdAt) }); // s.images included
        const list = [...(done.get(s.sessionId) ?? []), s];
        done.set(s.sessionId, list);
        if (list.length === options.settings.samples) {
          repo.setQuality({
            sessionId: s.sessionId,
            artifactVersion,
            rubricId: s.rubricId,
            rubricHash: s.rubricHash,
            requestedModel: s.requestedModel,
            quality: medianScore(list.map((x) => x.score)),
            samples: list.length,
            parsed: list.filter((x) => x.parseOk).length,
            updatedAt: Date.now(),
          });
        }
      },
    });
    return { interrupted: run.interrupted, samples: run.samples, total: targets.length * options.settings.samples, stats: client.stats };
  } finally {
    cache.close();
  }
}
