import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Store } from '../../lib/storage';
import type { LoadedConfig } from '../../lib/studyFiles/studyConfig';
import type { JudgeImageMode, JudgeRunRequest, RunKind, RunProgress } from '../../common/admin';
import type { ResearchTools } from './researchTools';
import type { AdminJobRow, LeaseOwner } from '../../lib/storage';
import { processOwner } from '../cluster/coordination';
import { JobRowWriter } from './jobRow';
import { periodicJob, type PeriodicJob } from '../cluster/periodic';

/**
 * Dashboard buttons for the judge and the analysis. A run starts in the background (one of each kind per
 * study at a time, cluster-wide), reports progress through `emit` (socket event `run:progress`), and is audited.
 * Each run is a row of admin_jobs (lib/storage/contract/jobs.ts) claimed by the node that runs it: every node's
 * status shows it, a second start on any node is refused while it runs, and a run whose node died is marked
 * failed ('abandoned') by the abandoned-job sweep once its heartbeat is older than JOB_STALE_MS.
 *  - judge: the research tools' judge over the study's database sessions (OPENAI_API_KEY → real judge,
 *    else the offline demo judge), storing samples and quality Q. `images` is the CLI's `--images`:
 *    `attach` sends uploaded images to the (vision) model; the audit entry records the choice.
 *  - analysis: exports the study (non-pilot, no identities) to a private folder and runs research/analysis/runAnalysis
 *    on it; the report stays in DATA_DIR/admin-analysis/<study>/ for the dashboard.
 */

export type { RunKind, RunProgress };

/** What to run: the analysis takes no options; the judge the request's (common/admin.ts JudgeRunRequest). */
export type RunRequest = ({ kind: 'judge' } & JudgeRunRequest) | { kind: 'analysis' };


/** Timings of the store-backed run rows (tests shorten them). */
export interface RunTimings {
  /** A running job's row is refreshed at least this often (default 5 s). */
  heartbeatMs: number;
  /** A running job not refreshed for this long belongs to a dead node (default 30 s). */
  staleMs: number;
  /** How often a node looks for abandoned jobs (default 10 s; 0 = only at start). */
  sweepMs: number;
}
const DEFAULT_TIMINGS: RunTimings = { heartbeatMs: 5_000, staleMs: 30_000, sweepMs: 10_000 };
/** Name of the cluster-wide lock of the abandoned-job sweep. */
export const ABANDONED_JOBS_LOCK = 'admin-jobs-abandoned';
const RUN_KINDS: readonly RunKind[] = ['judge', 'analysis'];

const progressOf = (j: AdminJobRow): RunProgress => ({ studyId: j.studyId, kind: j.kind as RunKind, state: j.state, done: j.done, total: j.total, message: j.message });

export class AdminRuns {
  /** Who claims this node's runs: the node's name and this process's incarnation. */
  readonly owner: LeaseOwner;
  private readonly timings: RunTimings;
  private readonly abandonedSweep: PeriodicJob<number>;
  /** The sweep at start (this node's previous process's runs). */
  private readonly firstSweep: Promise<number>;

  constructor(
    private readonly deps: {
      store: Store;
      config: LoadedConfig;
      dataDir: string;
      log: Logger;
      now: () => number;
      env: NodeJS.ProcessEnv;
      owner?: LeaseOwner;
      timings?: Partial<RunTimings>;
      /** The judge, export and analysis (wiring/researchTools.ts). */
      tools: ResearchTools;
    },
    private readonly emit: (p: RunProgress) => void,
  ) {
    this.owner = deps.owner ?? processOwner();
    this.timings = { ...DEFAULT_TIMINGS, ...deps.timings };
    this.abandonedSweep = periodicJob('abandoned dashboard jobs', this.timings.sweepMs, () => this.sweepAbandoned(), 0, deps.log);
    // At start: runs this node's previous process left behind are marked at once (same TANDEM_NODE_ID), then
    // their intermediate datasets removed.
    this.firstSweep = this.abandonedSweep.runOnce().then(async (marked) => {
      await this.removeInterruptedDatasets();
      return marked;
    });
    this.abandonedSweep.start();
  }

  /** Stops the abandoned-job sweep (server shutdown). */
  async close(): Promise<void> {
    await this.firstSweep;
    await this.abandonedSweep.stop();
  }

  /** One abandoned-job sweep now, after the one at start (tests; the interval runs it too). Returns how many it marked. */
  async markAbandoned(): Promise<number> {
    await this.firstSweep;
    return this.abandonedSweep.runOnce();
  }

  /** Marks failed the running jobs of dead nodes (one node at a time) and tells the dashboards. Returns how many. */
  private sweepAbandoned(): Promise<number> {
    const { store, now } = this.deps;
    return store.locks
      .tryRun(ABANDONED_JOBS_LOCK, () => store.adminJobs.abandonStale(now() - this.timings.staleMs, this.owner, now()))
      .then((run) => {
        if (!run.ran) return 0;
        for (const job of run.value) if (RUN_KINDS.includes(job.kind as RunKind)) this.emit(progressOf(job));
        return run.value.length;
      });
  }

  /**
   * Intermediate datasets (`<study>.dataset-<time>`) of analyses interrupted by a crash or restart. On a shared
   * DATA_DIR another node may be running one: a study whose latest analysis job still runs keeps its dataset.
   */
  private async removeInterruptedDatasets(): Promise<void> {
    const dir = join(this.deps.dataDir, 'admin-analysis');
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const at = name.indexOf('.dataset-');
      if (at < 0) continue;
      if ((await this.deps.store.adminJobs.latest(name.slice(0, at), 'analysis'))?.state === 'running') continue;
      rmSync(join(dir, name), { recursive: true, force: true });
    }
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

  /**
   * Starts a run; started false if one of that kind is already running for the study on any node (its job row
   * was claimed first). The promise `finished` settles when it ends.
   */
  async start(request: RunRequest, studyId: string, actor: string): Promise<{ started: boolean; finished: Promise<RunProgress> }> {
    const { kind } = request;
    const { store, now } = this.deps;
    const id = randomUUID();
    if (!(await store.adminJobs.claim({ id, kind, studyId, actor, owner: this.owner, now: now(), message: 'starting' })))
      return { started: false, finished: Promise.resolve({ studyId, kind, state: 'failed', done: 0, total: 0, message: 'already running' }) };
    const details = request.kind === 'judge' ? { images: request.images } : {};
    // The audit entry is written before the run's work starts (the work awaits it).
    const audited = store.audit.append({ at: now(), actor, action: `${kind}_run`, studyId, details });
    const row = new JobRowWriter(store, id, this.owner, now, this.timings.heartbeatMs, this.deps.log);
    const progress = (done: number, total: number, message: string) => {
      row.progress(done, total, message);
      this.emit({ studyId, kind, state: 'running', done, total, message });
    };
    progress(0, 0, 'starting');
    const work = audited.then(() => (request.kind === 'judge' ? this.judge(studyId, request.images, progress) : this.analysis(studyId, progress)));
    const finished = work
      .then((message): RunProgress => ({ studyId, kind, state: 'done', done: 1, total: 1, message }))
      .catch((err: unknown): RunProgress => {
        this.deps.log.error({ err, kind, studyId }, 'admin run failed');
        return { studyId, kind, state: 'failed', done: 0, total: 0, message: (err as Error).message.split('\n')[0] ?? 'failed' };
      })
      .then(async (p) => {
        await row.finish({ state: p.state === 'done' ? 'done' : 'failed', done: p.done, total: p.total, message: p.message, result: null });
        this.emit(p);
        return p;
      });
    return { started: true, finished };
  }

  /** The latest run of each kind for a study, on any node (null when never run). */
  async status(studyId: string): Promise<Record<RunKind, RunProgress | null> & { imageFields: string[] }> {
    const [judge, analysis] = await Promise.all(RUN_KINDS.map((kind) => this.deps.store.adminJobs.latest(studyId, kind)));
    return { judge: judge ? progressOf(judge) : null, analysis: analysis ? progressOf(analysis) : null, imageFields: this.imageFieldLabels(studyId) };
  }

  /** Labels of the image fields of the study's tasks (what `images: 'attach'` would show the judge). */
  private imageFieldLabels(studyId: string): string[] {
    const study = this.deps.config.studies.get(studyId);
    return study ? study.tasks.flatMap((t) => t.fields.filter((f) => f.kind === 'image').map((f) => f.label)) : [];
  }

  private async judge(studyId: string, images: JudgeImageMode, progress: (d: number, t: number, m: string) => void): Promise<string> {
    const study = this.deps.config.studies.get(studyId);
    return this.deps.tools.judgeStudy({
      store: this.deps.store,
      dataDir: this.deps.dataDir,
      studyId,
      tasks: study?.tasks ?? [],
      images,
      env: this.deps.env,
      onProgress: (done, total) => progress(done, total, `${done}/${total} judge samples`),
    });
  }

  private async analysis(studyId: string, progress: (d: number, t: number, m: string) => void): Promise<string> {
    const study = this.deps.config.studies.get(studyId);
    const survey = study ? this.deps.config.surveys.get(study.survey) : undefined;
    const dataset = join(this.deps.dataDir, 'admin-analysis', `${studyId}.dataset-${this.deps.now()}`);
    try {
      const exported = await this.deps.tools.exportDataset({
        store: this.deps.store,
        dataDir: this.deps.dataDir,
        studyId,
        outDir: dataset,
        includePilot: false,
        includeIdentities: false,
        ...(survey ? { survey } : {}),
        onProgress: (d, t) => progress(d, t, `exporting ${d}/${t} sessions`),
      });
      progress(exported.sessions, exported.sessions, 'analysing');
      await this.deps.tools.analyseDataset(dataset, join(this.deps.dataDir, 'admin-analysis', studyId));
      return `analysed ${exported.sessions} sessions`;
    } finally {
      rmSync(dataset, { recursive: true, force: true });
    }
  }
}

