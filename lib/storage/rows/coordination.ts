/**
 * The row shapes of reply_leases and admin_jobs as both engines return them (same column names; SQLite
 * gives booleans as 0/1), and their mapping to the contract's rows (leaseTypes.ts, jobTypes.ts).
 */
import type { AdminJobRow, AdminJobState } from '../contract/jobs';
import type { HeldLease, ReplyLeaseRow } from '../contract/leases';

export interface RawReplyLease {
  session_id: string;
  reply_id: string;
  reply_to: string;
  owner_node: string;
  owner_incarnation: string;
  started_at: number;
  heartbeat_at: number;
  stop_requested: number | boolean;
}

export const toReplyLease = (r: RawReplyLease): ReplyLeaseRow => ({
  sessionId: r.session_id,
  replyId: r.reply_id,
  replyTo: r.reply_to,
  ownerNode: r.owner_node,
  ownerIncarnation: r.owner_incarnation,
  startedAt: r.started_at,
  heartbeatAt: r.heartbeat_at,
  stopRequested: r.stop_requested === true || r.stop_requested === 1,
});

export interface RawAdminJob {
  id: string;
  kind: string;
  study_id: string;
  state: AdminJobState;
  actor: string;
  owner_node: string;
  owner_incarnation: string;
  done: number;
  total: number;
  message: string;
  result: string | null;
  created_at: number;
  heartbeat_at: number;
  finished_at: number | null;
  taken_at: number | null;
}

export const toAdminJob = (r: RawAdminJob): AdminJobRow => ({
  id: r.id,
  kind: r.kind,
  studyId: r.study_id,
  state: r.state,
  actor: r.actor,
  ownerNode: r.owner_node,
  ownerIncarnation: r.owner_incarnation,
  done: r.done,
  total: r.total,
  message: r.message,
  result: r.result === null ? null : (JSON.parse(r.result) as unknown),
  createdAt: r.created_at,
  heartbeatAt: r.heartbeat_at,
  finishedAt: r.finished_at,
  takenAt: r.taken_at,
});

/** A job's result as stored (JSON text, or NULL for none). */
export const resultJson = (result: unknown): string | null => (result === undefined || result === null ? null : JSON.stringify(result));

/** The message a job gets when its node stopped heartbeating (died) or restarted. */
export const ABANDONED_JOB_MESSAGE = 'abandoned: the node running it stopped';

/** Code-unit order: the same as SQLite's BINARY and PostgreSQL's COLLATE "C" for the ASCII ids the store makes. */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * UPDATE … RETURNING has no ORDER BY (and SQLite returns rows in no promised order), so the heartbeat's answer
 * and the abandoned jobs are put in key order here, the same on both engines.
 */
export const inReplyIdOrder = (leases: HeldLease[]): HeldLease[] => leases.sort((a, b) => compareText(a.replyId, b.replyId));
export const inCreationOrder = (jobs: AdminJobRow[]): AdminJobRow[] => jobs.sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id));
