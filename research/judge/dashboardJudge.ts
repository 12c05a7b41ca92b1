/**
 * The dashboard's judge run: the judge CLI's defaults (cli/judge.ts) over a study's database sessions, with the
 * model from JUDGE_MODEL and the real judge when OPENAI_API_KEY is set (else the offline demo judge). Resolves
 * with the line the dashboard shows, which says when the judge was the offline one and which sessions could not
 * be judged because an image could not be attached.
 */
import type { JudgeImageMode } from '../../common/admin';
import type { Task } from '../../common/study';
import type { Store } from '../../lib/storage';
import { loadRubrics } from '../../lib/studyFiles/rubricFiles';
import { judgeStudy } from './judgeStudy';
import { providerFromEnv } from './judgeProvider';
import { OfflineJudgeProvider } from './offlineJudge';
import { imageFailures, type JudgeSettings } from './runJudge';
import { judgeTasksOf } from './studySource';

const JUDGE_TIMEOUT_MS = 60_000;

export interface DashboardJudgeRequest {
  store: Store;
  dataDir: string;
  studyId: string;
  tasks: readonly Task[];
  images: JudgeImageMode;
  env: NodeJS.ProcessEnv;
  onProgress: (done: number, total: number) => void;
}

/** The dashboard's judge settings: the judge CLI's defaults, with the model from JUDGE_MODEL. */
export function dashboardJudgeSettings(env: NodeJS.ProcessEnv, images: JudgeImageMode): JudgeSettings {
  return { model: env.JUDGE_MODEL ?? 'gpt-4o-mini', samples: 3, concurrency: 4, temperature: 0.7, maxTokens: 400, baseSeed: 0, timeoutMs: JUDGE_TIMEOUT_MS, images };
}

export async function judgeStudyForDashboard(request: DashboardJudgeRequest): Promise<string> {
  const { images } = request;
  const chosen = providerFromEnv(request.env, () => new OfflineJudgeProvider(), { timeoutMs: JUDGE_TIMEOUT_MS });
  const result = await judgeStudy({
    store: request.store,
    dataDir: request.dataDir,
    studyId: request.studyId,
    tasks: judgeTasksOf({ tasks: request.tasks }),
    rubrics: loadRubrics(),
    settings: dashboardJudgeSettings(request.env, images),
    provider: chosen.provider,
    providerInfo: chosen.info,
    onProgress: (p) => request.onProgress(p.done, p.total),
  });
  const notes: string[] = [];
  if (result.groupsJudged > 0 || result.membersInGroups > 0) notes.push(`${result.groupsJudged} group document(s), ${result.membersInGroups} member session(s) judged through their group`);
  if (chosen.offline) notes.push('offline demo judge: no OPENAI_API_KEY');
  if (images === 'attach') notes.push(chosen.offline ? 'images attached and recorded, but the offline demo judge does not look at them' : 'images attached');
  // As the CLI: a session whose image could not be attached is not judged; say which, so it can be fixed and rerun.
  const unattached = [...imageFailures(result.samples)];
  if (unattached.length > 0) {
    const [sessionId, reason] = unattached[0]!;
    notes.push(`${unattached.length} session(s) not judged because an image could not be attached, e.g. ${sessionId}: ${reason}`);
  }
  return `${result.samples.length}/${result.total} judge samples${notes.length ? ` (${notes.join('; ')})` : ''}`;
}
