import { ABANDONED_JOB_MESSAGE, resultJson, toAdminJob, type RawAdminJob } from '../../rows/coordination';
import type { AdminJobOutcome, AdminJobRow, AdminJobsRepo } from '../../contract/jobs';
import type { LeaseOwner } from '../../contract/leases';
import type { Runner } from '../connection';

/** Dashboard jobs (table admin_jobs; contract in ../../jobTypes.ts). One running job per kind and study: a partial unique index. */
export class PgAdminJobs implements AdminJobsRepo {
  constructor(private readonly db: Runner) {}

  async claim(j: { id: string; kind: string; studyId: string; actor: string; owner: LeaseOwner; now: number; message: string }): Promise<boolean> {
    const n = await this.db.run(
      `INSERT INTO admin_jobs (id, kind, study_id, state, actor, owner_node, owner_incarnation, message, created_at, heartbeat_at)
       VALUES ($1, $2, $3, 'running', $4, $5, $6, $7, $8, $8) ON CONFLICT DO NOTHING`,
      [j.id, j.kind, j.studyId, j.actor, j.owner.node, j.owner.incarnation, j.message, j.now],
    );
    return n === 1;
  }

  async progress(id: string, owner: LeaseOwner, p: { done: number; total: number; message: string }, now: number): Promise<boolean> {
    const n = await this.db.run(
      `UPDATE admin_jobs SET done = $1, total = $2, message = $3, heartbeat_at = $4
        WHERE id = $5 AND state = 'running' AND owner_node = $6 AND owner_incarnation = $7`,
      [p.done, p.total, p.message, now, id, owner.node, owner.incarnation],
    );
    return n === 1;
  }

  async finish(id: string, o: AdminJobOutcome, now: number): Promise<boolean> {
    const n = await this.db.run(
      `UPDATE admin_jobs SET state = $1, done = $2, total = $3, message = $4, result = $5, finished_at = $6, heartbeat_at = $6 WHERE id = $7 AND state = 'running'`,
      [o.state, o.done, o.total, o.message, resultJson(o.result), now, id],
    );
    return n === 1;
  }

  async take(id: string, now: number): Promise<boolean> {
    return (await this.db.run(`UPDATE admin_jobs SET taken_at = $1 WHERE id = $2 AND state = 'done' AND taken_at IS NULL`, [now, id])) === 1;
  }

  async get(id: string): Promise<AdminJobRow | undefined> {
    const r = await this.db.one<RawAdminJob>('SELECT * FROM admin_jobs WHERE id = $1', [id]);
    return r && toAdminJob(r);
  }

  async latest(studyId: string, kind: string): Promise<AdminJobRow | undefined> {
    const r = await this.db.one<RawAdminJob>('SELECT * FROM admin_jobs WHERE study_id = $1 AND kind = $2 ORDER BY created_at DESC, id DESC LIMIT 1', [studyId, kind]);
    return r && toAdminJob(r);
  }

  async abandonStale(staleBefore: number, owner: LeaseOwner, now: number): Promise<AdminJobRow[]> {
    const rows = await this.db.rows<RawAdminJob>(
      `UPDATE admin_jobs SET state = 'failed', message = $1, finished_at = $2
        WHERE state = 'running' AND (heartbeat_at <= $3 OR (owner_node = $4 AND owner_incarnation <> $5))
        RETURNING *`,
      [ABANDONED_JOB_MESSAGE, now, staleBefore, owner.node, owner.incarnation],
    );
    return rows.map(toAdminJob);
  }
}
