/**
 * `judge --study <id>`: judges the latest artifact of every session of a study in the database,
 * storing each sample in `judgements` as soon as it finishes (an interrupted run keeps them) and
 * the per-session quality Q in `judge_quality` once all samples of a session are in. With
 * `--images attach` a sample's row lists the images it showed the model (`images`, as in a
 * dataset's judgements.jsonl); text-only samples leave it NULL.
 * Replies are cached in the store's reply cache (SQLite: <dataDir>/.judge-cache.sqlite).
 * A group's shared document is judged once, as the group's artifact (groupSource.ts): its samples go to
 * `group_judgements` and its Q to `group_judge_quality`; the members of a group are not judged one by one.
 */
import type { Store } from '../../lib/storage';
import type { LlmProvider } from '../../lib/llm/provider';
import { CachedModelClient, type ProviderInfo } from './cachedModelClient';
import { medianScore } from './quality';
import type { LoadedRubric } from '../../lib/studyFiles/rubricFiles';
import { runJudge, type JudgeProgress, type JudgeSample, type JudgeSettings, type JudgeTarget } from './runJudge';
import { readStudySessions, type StudyTaskDefinition } from './studySource';
import { judgeTargets } from './targets';
import { readStudyGroups } from './groupSource';

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
  const { store, studyId } = options;
  const grouped = new Set((await store.groups.listLobbyEntries(studyId)).filter((e) => e.groupId !== null).map((e) => e.sessionId));
  const materials = (await readStudySessions(store, options.dataDir, studyId, options.tasks)).filter((m) => !grouped.has(m.sessionId));
  const versionOf = new Map(materials.map((m) => [m.sessionId, m.artifact?.version ?? 0]));
  const groups = new Map((await readStudyGroups(store, studyId, options.tasks)).map((g) => [g.groupId, g]));
  const groupTargets = judgeTargets([...groups.values()].map((g) => g.material), options.rubrics, options.rubricFlag, options.settings.images).map(
    (t): JudgeTarget => ({ ...t, linkSessions: groups.get(t.sessionId)!.memberSessions }),
  );
  const targets = [...judgeTargets(materials, options.rubrics, options.rubricFlag, options.settings.images), ...groupTargets];
  const repo = options.store.judgements;
  const cache = await options.store.openReplyCache();
  const done = new Map<string, JudgeSample[]>();
  try {
    const client = new CachedModelClient(options.provider, options.providerInfo, cache);
    const run = await runJudge(targets, options.settings, client, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      onSample: async (s) => {
        const complete = collectSample(done, s, options.settings.samples);
        const group = groups.get(s.sessionId);
        if (group) {
          // A group's sample: keyed by group and document version; the judge's unit id is the group id.
          const { sessionId: _unit, ...sample } = s;
          const key = { groupId: group.groupId, docVersion: group.docVersion };
          await store.groupJudgements.upsert({ ...sample, ...key, createdAt: Date.parse(s.createdAt) });
          if (complete) await store.groupJudgements.setQuality({ ...key, ...qualityOf(complete) });
          return;
        }
        const artifactVersion = versionOf.get(s.sessionId) ?? 0;
        await repo.upsert({ ...s, artifactVersion, createdAt: Date.parse(s.createdAt) }); // s.images included
        if (complete) await repo.setQuality({ sessionId: s.sessionId, artifactVersion, ...qualityOf(complete) });
      },
    });
    return {
      interrupted: run.interrupted,
      samples: run.samples,
      total: targets.length * options.settings.samples,
      stats: client.stats,
      groupsJudged: groupTargets.length,
      membersInGroups: grouped.size,
    };
  } finally {
    await cache.close();
  }
}

/** Adds a sample to its unit's list; returns the list once the unit has all its samples. */
function collectSample(done: Map<string, JudgeSample[]>, s: JudgeSample, samples: number): JudgeSample[] | null {
  const list = [...(done.get(s.sessionId) ?? []), s];
  done.set(s.sessionId, list);
  return list.length === samples ? list : null;
}

/** The quality row of a unit (session or group) whose samples are all in: Q is their median score. */
function qualityOf(list: JudgeSample[]) {
  const s = list[0]!;
  return {
    rubricId: s.rubricId,
    rubricHash: s.rubricHash,
    requestedModel: s.requestedModel,
    quality: medianScore(list.map((x) => x.score)),
    samples: list.length,
    parsed: list.filter((x) => x.parseOk).length,
    updatedAt: Date.now(),
  };
}
