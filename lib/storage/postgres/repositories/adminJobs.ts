import { ABANDONED_JOB_MESSAGE, inCreationOrder, resultJson, toAdminJob, type RawAdminJob } from '../../rows/coordination';
import type { AdminJobOutcome, AdminJobRow, AdminJobsRepo } from '../../contract/jobs';
import type { LeaseOwner } from '../../contract/leases';
import { ADMIN_JOB_SQL } from '../../sql/admin';
import type { Runner } from '../connection';

/** Dashboard jobs (table admin_jobs; contract in ../../contract/jobs.ts). One running job per kind and study: a partial unique index. */
export class PgAdminJobs implements AdminJobsRepo {
  constructor(private readonly db: Runner) {}

  async claim(j: { id: string; kind: string; studyId: string; actor: string; owner: LeaseOwner; now: number; message: string }): Promise<boolean> {
    return (await this.db.run(ADMIN_JOB_SQL.claim.postgres, [j.id, j.kind, j.studyId, j.actor, j.owner.node, j.owner.incarnation, j.message, j.now, j.now])) === 1;
  }

  async progress(id: string, owner: LeaseOwner, p: { done: number; total: number; message: string }, now: number): Promise<boolean> {
    return (await this.db.run(ADMIN_JOB_SQL.progress.postgres, [p.done, p.total, p.message, now, id, owner.node, owner.incarnation])) === 1;
  }

  async finish(id: string, o: AdminJobOutcome, now: number): Promise<boolean> {
    return (await this.db.run(ADMIN_JOB_SQL.finish.postgres, [o.state, o.done, o.total, o.message, resultJson(o.result), now, now, id])) === 1;
  }

  async take(id: string, now: number): Promise<boolean> {
    return (await this.db.run(ADMIN_JOB_SQL.take.postgres, [now, id])) === 1;
  }

  async get(id: string): Promise<AdminJobRow | undefined> {
    const r = await this.db.one<RawAdminJob>(ADMIN_JOB_SQL.get.postgres, [id]);
    return r && toAdminJob(r);
  }

  async latest(studyId: string, kind: string): Promise<AdminJobRow | undefined> {
    const r = await this.db.one<RawAdminJob>(ADMIN_JOB_SQL.latest.postgres, [studyId, kind]);
    return r && toAdminJob(r);
  }

  async abandonStale(staleBefore: number, owner: LeaseOwner, now: number): Promise<AdminJobRow[]> {
    const rows = await this.db.rows<RawAdminJob>(ADMIN_JOB_SQL.abandonStale.postgres, [ABANDONED_JOB_MESSAGE, now, staleBefore, owner.node, owner.incarnation]);
    return inCreationOrder(rows.map(toAdminJob));
  }
}
