import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'express';
import { ZipArchive } from 'archiver';
import type { Logger } from 'pino';
import type { Store } from '../../lib/storage';
import type { LoadedConfig } from '../../lib/studyFiles/studyConfig';
import { ExportRefused, type ResearchTools } from './researchTools';
import type { LeaseOwner } from '../../lib/storage';
import { processOwner } from '../cluster/coordination';
import { JobRowWriter } from './jobRow';

/**
 * Dashboard exports: the dataset is written (streamed) into a private folder under DATA_DIR, then
 * downloaded once as a zip streamed by archiver; the folder is removed after the download or when the
 * ticket expires. A ticket belongs to the researcher session that created it.
 * Each export is also an admin_jobs row (kind 'export', id = SHA-256 of its ticket; never the ticket itself):
 * one export of a study is prepared at a time cluster-wide, a node that dies mid-export leaves a row that is
 * marked abandoned (AdminRuns' sweep), and a download request reaching another node is served there too: the
 * files are in the DATA_DIR the cluster shares, and the row says whose researcher session the ticket belongs to
 * (the SHA-256 of its token, as the admin sessions table holds it) and when it expires. A node that does not see
 * those files (its DATA_DIR is not shared) names the node that prepared them instead.
 */

const TICKET_TTL_MS = 30 * 60_000;
const JOB_HEARTBEAT_MS = 5_000;

const jobIdOf = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/** What a finished export's job row keeps (admin_jobs.result): its counts and whose ticket it is. */
interface StoredResult {
  sessions: number;
  redactions: number;
  ownerTokenHash: string;
}

export interface Job {
  dir: string;
  studyId: string;
  ownerTokenHash: string;
  expiresAt: number;
}

export class ExportJobs {
  private readonly jobs = new Map<string, Job>();
  private readonly sweeper: NodeJS.Timeout;
  /** Tickets whose export this process is writing right now. */
  private readonly preparing = new Set<string>();
  /** The start-up clean-up of earlier processes' export folders (awaited by close and by tests). */
  readonly cleaned: Promise<void>;

  constructor(
    private readonly store: Store,
    private readonly dataDir: string,
    private readonly config: LoadedConfig,
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly tools: ResearchTools,
    private readonly owner: LeaseOwner = processOwner(),
  ) {
    // Folders left by a previous process (crash, restart) may hold identities.csv: removed at start, except
    // those another live node is preparing or still offers for download (DATA_DIR is shared in a cluster).
    this.cleaned = this.removeLeftovers().catch((err: unknown) => this.log.error({ err }, 'could not clean up earlier exports'));
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async run(input: {
    studyId: string;
    includePilot: boolean;
    includeIdentities: boolean;
    ownerTokenHash: string;
    /** Who asked (recorded on the job row). */
    actor?: string;
    onProgress: (done: number, total: number) => void;
  }): Promise<{ ticket: string; sessions: number; redactions: number }> {
    const ticket = randomBytes(18).toString('base64url');
    const jobId = jobIdOf(ticket);
    const claimed = await this.store.adminJobs.claim({
      id: jobId,
      kind: 'export',
      studyId: input.studyId,
      actor: input.actor ?? 'researcher',
      owner: this.owner,
      now: this.now(),
      message: 'exporting',
    });
    if (!claimed) throw new ExportRefused(`an export of study "${input.studyId}" is already being prepared; try again when it is done`);
    const row = new JobRowWriter(this.store, jobId, this.owner, this.now, JOB_HEARTBEAT_MS, this.log);
    const dir = join(this.dataDir, 'admin-exports', ticket);
    this.preparing.add(ticket);
    const study = this.config.studies.get(input.studyId);
    const survey = study ? this.config.surveys.get(study.survey) : undefined;
    try {
      const exported = await this.tools.exportDataset({
        store: this.store,
        dataDir: this.dataDir,
        studyId: input.studyId,
        outDir: dir,
        includePilot: input.includePilot,
        includeIdentities: input.includeIdentities,
        ...(study ? { freeText: study.export.free_text } : {}),
        ...(survey ? { survey } : {}),
        onProgress: (done, total) => {
          row.progress(done, total, `exporting ${done}/${total} sessions`);
          input.onProgress(done, total);
        },
      });
      this.jobs.set(ticket, { dir, studyId: input.studyId, ownerTokenHash: input.ownerTokenHash, expiresAt: this.now() + TICKET_TTL_MS });
      this.preparing.delete(ticket);
      const result = { sessions: exported.sessions, redactions: exported.redactions };
      const stored: StoredResult = { ...result, ownerTokenHash: input.ownerTokenHash };
      await row.finish({ state: 'done', done: result.sessions, total: result.sessions, message: `exported ${result.sessions} sessions`, result: stored });
      return { ticket, ...result };
    } catch (err) {
      this.preparing.delete(ticket);
      rmSync(dir, { recursive: true, force: true });
      await row.finish({ state: 'failed', done: 0, total: 0, message: (err as Error).message.split('\n')[0] ?? 'failed', result: null });
      throw err;
    }
  }

  /**
   * Where a researcher session's ticket can be downloaded: `here` (this process's export, or one another node
   * prepared in the shared DATA_DIR, not expired), `elsewhere` (another node prepared it, but this node does not see
   * its files: DATA_DIR not shared), or `none` (unknown, expired, already downloaded, or another session's ticket).
   * `here` takes the ticket's one download (its job row, on any node), so two requests at once never both stream it.
   */
  async locate(ticket: string, ownerTokenHash: string): Promise<{ at: 'here'; job: Job } | { at: 'elsewhere'; node: string } | { at: 'none' }> {
    const found = await this.find(ticket, ownerTokenHash);
    if (found.at !== 'here') return found;
    // Forgotten here only once the store answered: if it is briefly unavailable, the ticket still works later.
    const taken = await this.store.adminJobs.take(jobIdOf(ticket), this.now());
    this.jobs.delete(ticket);
    return taken ? found : { at: 'none' };
  }

  private async find(ticket: string, ownerTokenHash: string): Promise<{ at: 'here'; job: Job } | { at: 'elsewhere'; node: string } | { at: 'none' }> {
    const mine = this.jobs.get(ticket);
    if (mine) return mine.ownerTokenHash === ownerTokenHash && mine.expiresAt > this.now() ? { at: 'here', job: mine } : { at: 'none' };
    if (this.store.engine === 'sqlite') return { at: 'none' };
    const row = await this.store.adminJobs.get(jobIdOf(ticket));
    if (!row || row.kind !== 'export' || row.state !== 'done' || row.takenAt !== null || row.ownerNode === this.owner.node) return { at: 'none' };
    const stored = row.result as Partial<StoredResult> | null;
    const expiresAt = (row.finishedAt ?? 0) + TICKET_TTL_MS;
    if (stored?.ownerTokenHash !== ownerTokenHash || expiresAt <= this.now()) return { at: 'none' };
    const dir = join(this.dataDir, 'admin-exports', ticket);
    if (!existsSync(dir)) return { at: 'elsewhere', node: row.ownerNode };
    return { at: 'here', job: { dir, studyId: row.studyId, ownerTokenHash, expiresAt } };
  }

  /** Streams the dataset as a zip; the folder is deleted once the download has been sent. */
  streamZip(job: Job, res: Response): void {
    const archive = new ZipArchive({ zlib: { level: 6 } });
    const cleanup = () => rmSync(job.dir, { recursive: true, force: true });
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="tandem-${job.studyId}-${new Date(this.now()).toISOString().slice(0, 10)}.zip"`);
    res.setHeader('Cache-Control', 'no-store');
    archive.on('error', (err: Error) => {
      this.log.error({ err }, 'export zip failed');
      res.destroy(err);
      cleanup();
    });
    res.on('close', cleanup);
    archive.pipe(res);
    archive.directory(job.dir, `tandem-${job.studyId}`);
    void archive.finalize();
  }

  private sweep(): void {
    void this.removeLeftovers().catch((err: unknown) => this.log.error({ err }, 'could not clean up earlier exports'));
    const now = this.now();
    for (const [ticket, job] of this.jobs) {
      if (job.expiresAt > now) continue;
      this.jobs.delete(ticket);
      rmSync(job.dir, { recursive: true, force: true });
    }
  }

  /**
   * Removes every export folder under DATA_DIR/admin-exports (each is named by its ticket) that this process is
   * not preparing or offering, unless (on PostgreSQL, where DATA_DIR may be shared by several nodes) its job row
   * says another node is preparing it, or prepared it less than a ticket's lifetime ago: that one may still be
   * downloaded from its node. Runs at start and with every sweep, so a dead process's files (they may hold
   * identities.csv) outlive it by at most a ticket's lifetime; on SQLite (one node) they go at start.
   */
  private async removeLeftovers(): Promise<void> {
    const root = join(this.dataDir, 'admin-exports');
    if (!existsSync(root)) return;
    const now = this.now();
    for (const ticket of readdirSync(root)) {
      if (this.jobs.has(ticket) || this.preparing.has(ticket)) continue;
      const job = this.store.engine === 'sqlite' ? undefined : await this.store.adminJobs.get(jobIdOf(ticket));
      const elsewhere = job !== undefined && job.ownerNode !== this.owner.node;
      const live = job?.state === 'running' || (job?.state === 'done' && (job.finishedAt ?? 0) > now - TICKET_TTL_MS);
      if (!(elsewhere && live)) rmSync(join(root, ticket), { recursive: true, force: true });
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const job of this.jobs.values()) rmSync(job.dir, { recursive: true, force: true });
    this.jobs.clear();
  }
}
