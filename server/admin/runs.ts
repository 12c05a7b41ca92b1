import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { runAnalysis } from '../../analysis/runAnalysis';
import { DEFAULT_OPTIONS } from '../../analysis/summary';
import { exportStudy } from '../../exports/exportStudy';
import type { Store } from '../db/store';
import type { ImageMode } from '../judge/judgeImages';
import { judgeStudy } from '../judge/judgeStudy';
import { providerFromEnv } from '../judge/judgeProvider';
import { OfflineJudgeProvider } from '../judge/offlineJudge';
import { loadRubrics } from '../judge/rubricFiles';
import { imageFailures, type JudgeSettings } from '../judge/runJudge';
import { judgeTasksOf } from '../judge/studySource';
import type { LoadedConfig } from '../services/config';
import type { JudgeRunRequest, RunKind, RunProgress } from '../../common/admin';

/**
 * Dashboard buttons for the judge and the analysis. A run starts in the background (one of each kind per
 * study at a time), reports progress through `emit` (socket event `run:progress`), and is audited.
 *  - judge: the judge module's judgeStudy over the study's database sessions (OPENAI_API_KEY → real judge,
 *    else the offline demo judge), storing samples and quality Q. `images` is the CLI's `--images`:
 *    `attach` sends uploaded images to the (vision) model; the audit entry records the choice.
 *  - analysis: exports the study (non-pilot, no identities) to a private folder and runs analysis/runAnalysis
 *    on it; the report stays in DATA_DIR/admin-analysis/<study>/ for the dashboard.
 */

export type { RunKind, RunProgress };

/** What to run: the analysis takes no options; the judge the request's (common/admin.ts JudgeRunRequest). */
export type RunRequest = ({ kind: 'judge' } & JudgeRunRequest) | { kind: 'analysis' };

const JUDGE_TIMEOUT_MS = 60_000;

/** The dashboard's judge settings: the judge CLI's defaults (cli/judge.ts), with the model from JUDGE_MODEL. */
function dashboardJudgeSettings(env: NodeJS.ProcessEnv, images: ImageMode): JudgeSettings {
  return { model: env.JUDGE_MODEL ?? 'gpt-4o-mini', samples: 3, concurrency: 4, temperature: 0.7, maxTokens: 400, baseSeed: 0, timeoutMs: JUDGE_TIMEOUT_MS, images };
}

export class AdminRuns {
  private readonly running = new Set<string>();
  private readonly latest = new Map<string, RunProgress>();

  constructor(
    private readonly deps: { store: Store; config: LoadedConfig; dataDir: string; log: Logger; now: () => number; env: NodeJS.ProcessEnv },
    private readonly emit: (p: RunProgress) => void,
  ) {
    // Intermediate datasets of an analysis interrupted by a crash or restart.
    const dir = join(deps.dataDir, 'admin-analysis');
    if (existsSync(dir)) for (const name of readdirSync(dir)) if (name.includes('.dataset-')) rmSync(join(dir, name), { recursive: true, force: true });
  }

  reportFile(studyId: string): string {
    return join(this.deps.dataDir, 'admin-analysis', studyId, 'report.html');
  }

  /** Removes the study's analysis outputs (after a withdrawal they may still count the person). */
  discardReport(studyId: string): void {
    rmSync(join(this.deps.dataDir, 'admin-analysis', studyId), { recursive: true, force: true });
  }

  hasReport(studyId: string): boolean {
    return existsSync(this.reportFile(studyId));
  }

  /** Starts a run; false if one of that kind is already running for the study. The promise settles when it ends. */
  start(request: RunRequest, studyId: string, actor: string): { started: boolean; finished: Promise<RunProgress> } {
    const { kind } = request;
    const key = `${kind}:${studyId}`;
    if (this.running.has(key)) return { started: false, finished: Promise.resolve({ studyId, kind, state: 'failed', done: 0, total: 0, message: 'already running' }) };
    this.running.add(key);
    const details = request.kind === 'judge' ? { images: request.images } : {};
    // The audit entry is written before the run's work starts (the work awaits it).
    const audited = this.deps.store.audit.append({ at: this.deps.now(), actor, action: `${kind}_run`, studyId, details });
    const progress = (done: number, total: number, message: string) => this.report({ studyId, kind, state: 'running', done, total, message });
    progress(0, 0, 'starting');
    const work = audited.then(() => (request.kind === 'judge' ? this.judge(studyId, request.images, progress) : this.analysis(studyId, progress)));
    const finished = work
      .then((message): RunProgress => ({ studyId, kind, state: 'done', done: 1, total: 1, message }))
      .catch((err: unknown): RunProgress => {
        this.deps.log.error({ err, kind, studyId }, 'admin run failed');
        return { studyId, kind, state: 'failed', done: 0, total: 0, message: (err as Error).message.split('\n')[0] ?? 'failed' };
      })
      .then((p) => {
        this.running.delete(key);
        this.report(p);
        return p;
      });
    return { started: true, finished };
  }

  private report(p: RunProgress): void {
    this.latest.set(`${p.kind}:${p.studyId}`, p);
    this.emit(p);
  }

  /** The latest progress of each kind of run for a study (null when never run since the server started). */
  status(studyId: string): Record<RunKind, RunProgress | null> & { imageFields: string[] } {
    return { judge: this.latest.get(`judge:${studyId}`) ?? null, analysis: this.latest.get(`analysis:${studyId}`) ?? null, imageFields: this.imageFieldLabels(studyId) };
  }

  /** Labels of the image fields of the study's tasks (what `images: 'attach'` would show the judge). */
  private imageFieldLabels(studyId: string): string[] {
    const study = this.deps.config.studies.get(studyId);
    return study ? study.tasks.flatMap((t) => t.fields.filter((f) => f.kind === 'image').map((f) => f.label)) : [];
  }

  private async judge(studyId: string, images: ImageMode, progress: (d: number, t: number, m: string) => void): Promise<string> {
    const study = this.deps.config.studies.get(studyId);
    const tasks = study ? judgeTasksOf(study) : [];
    const settings = dashboardJudgeSettings(this.deps.env, images);
    const chosen = providerFromEnv(this.deps.env, () => new OfflineJudgeProvider(), { timeoutMs: JUDGE_TIMEOUT_MS });
    const result = await judgeStudy({
      store: this.deps.store,
      dataDir: this.deps.dataDir,
      studyId,
      tasks,
      rubrics: loadRubrics(),
      settings,
      provider: chosen.provider,
      providerInfo: chosen.info,
      onProgress: (p) => progress(p.done, p.total, `${p.done}/${p.total} judge samples`),
    });
    const notes: string[] = [];
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

  private async analysis(studyId: string, progress: (d: number, t: number, m: string) => void): Promise<string> {
    const study = this.deps.config.studies.get(studyId);
    const survey = study ? this.deps.config.surveys.get(study.survey) : undefined;
    const dataset = join(this.deps.dataDir, 'admin-analysis', `${studyId}.dataset-${this.deps.now()}`);
    try {
      const { manifest } = await exportStudy({
        store: this.deps.store,
        dataDir: this.deps.dataDir,
        studyId,
        outDir: dataset,
        includePilot: false,
        includeIdentities: false,
        ...(survey ? { survey } : {}),
        onProgress: (d, t) => progress(d, t, `exporting ${d}/${t} sessions`),
      });
      progress(manifest.counts.sessions, manifest.counts.sessions, 'analysing');
      await runAnalysis(dataset, join(this.deps.dataDir, 'admin-analysis', studyId), DEFAULT_OPTIONS);
      return `analysed ${manifest.counts.sessions} sessions`;
    } finally {
      rmSync(dataset, { recursive: true, force: true });
    }
  }
}
