/**
 * Store contract for dashboard jobs (table admin_jobs, migration 021): a judge run, analysis or export
 * started from the dashboard is a row claimed by the node that runs it, so every node shows its progress,
 * a second start anywhere is refused while it runs, and a job whose node died is marked failed
 * ('abandoned') instead of showing "running" forever (server/admin/runs.ts, server/admin/exportJobs.ts).
 */
import type { LeaseOwner } from './leases';

export type AdminJobState = 'running' | 'done' | 'failed';

export interface AdminJobRow {
  id: string;
  kind: string;
  studyId: string;
  state: AdminJobState;
  actor: string;
  ownerNode: string;
  ownerIncarnation: string;
  done: number;
  total: number;
  message: string;
  /** JSON the job stored when it ended (e.g. an export's ticket and counts); null while running or without one. */
  result: unknown;
  createdAt: number;
  heartbeatAt: number;
  finishedAt: number | null;
  /** When a done job's result was taken (an export's one download); null until then. */
  takenAt: number | null;
}

/** How a job ended: its state, final progress and message, and the JSON it leaves for later requests (or null). */
export interface AdminJobOutcome {
  state: 'done' | 'failed';
  done: number;
  total: number;
  message: string;
  result: unknown;
}

export interface AdminJobsRepo {
  /**
   * Inserts the job as running, owned by `owner`. False when a job of that kind and study is already running
   * (on any node): decided by a partial unique index, so two nodes never both start one.
   */
  claim(job: { id: string; kind: string; studyId: string; actor: string; owner: LeaseOwner; now: number; message: string }): Promise<boolean>;
  /** Records progress (and is the job's heartbeat) while it is running and owned by `owner`. False when it no longer is. */
  progress(id: string, owner: LeaseOwner, p: { done: number; total: number; message: string }, now: number): Promise<boolean>;
  /** Ends a running job (done or failed) with its final progress and result. False when it was not running (e.g. marked abandoned). */
  finish(id: string, outcome: AdminJobOutcome, now: number): Promise<boolean>;
  /**
   * Takes a done job's result for its one use (an export's download) at `now`. True for the first caller on any
   * node; false if it was taken already, is not done, or does not exist.
   */
  take(id: string, now: number): Promise<boolean>;
  get(id: string): Promise<AdminJobRow | undefined>;
  /** The newest job of that kind for the study. */
  latest(studyId: string, kind: string): Promise<AdminJobRow | undefined>;
  /**
   * Marks failed every running job whose heartbeat is ≤ staleBefore, or that `owner.node` ran in another
   * incarnation (its process restarted). Returns the jobs it marked.
   */
  abandonStale(staleBefore: number, owner: LeaseOwner, now: number): Promise<AdminJobRow[]>;
}
