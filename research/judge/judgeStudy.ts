/**
 * `judge --study <id>`: judges the latest artifact of every session of a study in the database,
 * storing each sample in `judgements` as soon as it finishes (an interrupted run keeps them) and
 * the per-session quality Q in `judge_quality` once all samples of a session are in. With
 * `--images attach` a sample's row lists the images it showed the model (`images`, as in a
 * dataset's judgements.jsonl); text-only samples leave it NULL.
 * Replies are cached in the store's reply cache (SQLite: <dataDir>/.judge-cache.sqlite).
 */
import type { Store } from '../../lib/storage';
import type { LlmProvider } from '../../lib/llm/provider';
import { CachedModelClient, type ProviderInfo } from './cachedModelClient';
import { medianScore } from './quality';
import type { LoadedRubric } from '../../lib/studyFiles/rubricFiles';
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
  if (!(await options.store.studies.get(options.studyId)))
    throw new Error(`study "${options.studyId}" is not in the database ${options.store.description}`);
  const materials = await readStudySessions(options.store, options.dataDir, options.studyId, options.tasks);
  const versionOf = new Map(materials.map((m) => [m.sessionId, m.artifact?.version ?? 0]));
  const targets = judgeTargets(materials, options.rubrics, options.rubricFlag, options.settings.images);
  const repo = options.store.judgements;
  const cache = await options.store.openReplyCache();
  const done = new Map<string, JudgeSample[]>();
  try {
    const client = new CachedModelClient(options.provider, options.providerInfo, cache);
    const run = await runJudge(targets, options.settings, client, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      onSample: async (s) => {
        const artifactVersion = versionOf.get(s.sessionId) ?? 0;
        await repo.upsert({ ...s, artifactVersion, createdAt: Date.parse(s.createdAt) }); // s.images included
        const list = [...(done.get(s.sessionId) ?? []), s];
        done.set(s.sessionId, list);
        if (list.length === options.settings.samples) {
          await repo.setQuality({
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
    await cache.close();
  }
}
