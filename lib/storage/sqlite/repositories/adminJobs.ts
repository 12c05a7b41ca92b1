import { cachedStatement, type SqliteDatabase } from '../database';
import { ABANDONED_JOB_MESSAGE, resultJson, toAdminJob, type RawAdminJob } from '../../rows/coordination';
import type { AdminJobOutcome, AdminJobRow, AdminJobsRepo } from '../../contract/jobs';
import type { LeaseOwner } from '../../contract/leases';
import type { Sync } from '../sync';

/** Dashboard jobs (table admin_jobs; contract in ../../jobTypes.ts). */
export class AdminJobsRepository implements Sync<AdminJobsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  claim(j: { id: string; kind: string; studyId: string; actor: string; owner: LeaseOwner; now: number; message: string }): boolean {
    return (
      cachedStatement(
        this.db,
        `INSERT INTO admin_jobs (id, kind, study_id, state, actor, owner_node, owner_incarnation, message, created_at, heartbeat_at)
         VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ).run(j.id, j.kind, j.studyId, j.actor, j.owner.node, j.owner.incarnation, j.message, j.now, j.now).changes === 1
    );
  }

  progress(id: string, owner: LeaseOwner, p: { done: number; total: number; message: string }, now: number): boolean {
    return (
      cachedStatement(
        this.db,
        `UPDATE admin_jobs SET done = ?, total = ?, message = ?, heartbeat_at = ?
          WHERE id = ? AND state = 'running' AND owner_node = ? AND owner_incarnation = ?`,
      ).run(p.done, p.total, p.message, now, id, owner.node, owner.incarnation).changes === 1
    );
  }

  finish(id: string, o: AdminJobOutcome, now: number): boolean {
    return (
      cachedStatement(
        this.db,
        `UPDATE admin_jobs SET state = ?, done = ?, total = ?, message = ?, result = ?, finished_at = ?, heartbeat_at = ? WHERE id = ? AND state = 'running'`,
      ).run(o.state, o.done, o.total, o.message, resultJson(o.result), now, now, id).changes === 1
    );
  }

  take(id: string, now: number): boolean {
    return cachedStatement(this.db, `UPDATE admin_jobs SET taken_at = ? WHERE id = ? AND state = 'done' AND taken_at IS NULL`).run(now, id).changes === 1;
  }

  get(id: string): AdminJobRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM admin_jobs WHERE id = ?').get(id) as RawAdminJob | undefined;
    return r && toAdminJob(r);
  }

  latest(studyId: string, kind: string): AdminJobRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM admin_jobs WHERE study_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT 1').get(studyId, kind) as
      | RawAdminJob
      | undefined;
    return r && toAdminJob(r);
  }

  abandonStale(staleBefore: number, owner: LeaseOwner, now: number): AdminJobRow[] {
    return (
      cachedStatement(
        this.db,
        `UPDATE admin_jobs SET state = 'failed', message = ?, finished_at = ?
          WHERE state = 'running' AND (heartbeat_at <= ? OR (owner_node = ? AND owner_incarnation <> ?))
          RETURNING *`,
      ).all(ABANDONED_JOB_MESSAGE, now, staleBefore, owner.node, owner.incarnation) as RawAdminJob[]
    ).map(toAdminJob);
  }
}
