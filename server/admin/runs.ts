import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { runAnalysis } from '../../analysis/runAnalysis';
import { DEFAULT_OPTIONS } from '../../analysis/summary';
import { exportStudy } from '../../exports/exportStudy';
import type { Store } from '../db/store';
import { AuditRepository } from '../db/repositories/audit';
import { judgeStudy } from '../judge/judgeStudy';
import { providerFromEnv } from '../judge/judgeProvider';
import { OfflineJudgeProvider } from '../judge/offlineJudge';
import { loadRubrics } from '../judge/rubricFiles';
import { judgeTasksOf } from '../judge/studySource';
import type { LoadedConfig } from '../services/config';
import type { RunKind, RunProgress } from '../../common/admin';

/**
 * Dashboard buttons for the judge and the analysis. A run starts in the background (one of each kind per
 * study at a time), reports progress through `emit` (socket event `run:progress`), and is audited.
 *  - judge: the judge module's judgeStudy over the study's database sessions (OPENAI_API_KEY → real judge,
 *    else the offline demo judge), storing samples and quality Q.
 *  - analysis: exports the study (non-pilot, no identities) to a private folder and runs analysis/runAnalysis
 *    on it; the report stays in DATA_DIR/admin-analysis/<study>/ for the dashboard.
 */

export type { RunKind, RunProgress };

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
  start(kind: RunKind, studyId: string, actor: string): { started: boolean; finished: Promise<RunProgress> } {
    const key = `${kind}:${studyId}`;
    if (this.running.has(key)) return { started: false, finished: Promise.resolve({ studyId, kind, state: 'failed', done: 0, total: 0, message: 'already running' }) };
    this.running.add(key);
    new AuditRepository(this.deps.store.db).append({ at: this.deps.now(), actor, action: `${kind}_run`, studyId, details: {} });
    const progress = (done: number, total: number, message: string) => this.report({ studyId, kind, state: 'running', done, total, message });
    progress(0, 0, 'starting');
    const work = kind === 'judge' ? this.judge(studyId, progress) : this.analysis(studyId, progress);
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
  status(studyId: string): Record<RunKind, RunProgress | null> {
    return { judge: this.latest.get(`judge:${studyId}`) ?? null, analysis: this.latest.get(`analysis:${studyId}`) ?? null };
  }

  private async judge(studyId: string, progress: (d: number, t: number, m: string) => void): Promise<string> {
    const study = this.deps.config.studies.get(studyId);
    const tasks = study ? judgeTasksOf(study) : [];
    const chosen = providerFromEnv(this.deps.env, () => new OfflineJudgeProvider(), { timeoutMs: 60_000 });
    const result = await judgeStudy({
      store: this.deps.store,
      dataDir: this.deps.dataDir,
      studyId,
      tasks,
      rubrics: loadRubrics(),
      settings: { model: this.deps.env.JUDGE_MODEL ?? 'gpt-4o-mini', samples: 3, concurrency: 4, temperature: 0.7, maxTokens: 400, baseSeed: 0, timeoutMs: 60_000 },
      provider: chosen.provider,
      providerInfo: chosen.info,
      onProgress: (p) => progress(p.done, p.total, `${p.done}/${p.total} judge samples`),
    });
    return `${result.samples.length}/${result.total} judge samples${chosen.offline ? ' (offline demo judge: no OPENAI_API_KEY)' : ''}`;
  }

  private async analysis(studyId: string, progress: (d: number, t: number, m: string) => void): Promise<string> {
    const study = this.deps.config.studies.get(studyId);
    const survey = study ? this.deps.config.surveys.get(study.survey) : undefined;
    const dataset = join(this.deps.dataDir, 'admin-analysis', `${studyId}.dataset-${this.deps.now()}`);
    try {
      const { manifest } = await exportStudy({
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
