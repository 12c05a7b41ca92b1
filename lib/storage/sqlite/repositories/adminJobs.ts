import { ABANDONED_JOB_MESSAGE, inCreationOrder, resultJson, toAdminJob, type RawAdminJob } from '../../rows/coordination';
import type { AdminJobOutcome, AdminJobRow, AdminJobsRepo } from '../../contract/jobs';
import type { LeaseOwner } from '../../contract/leases';
import { ADMIN_JOB_SQL } from '../../sql/admin';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** Dashboard jobs (table admin_jobs; contract in ../../contract/jobs.ts). */
export class AdminJobsRepository extends SqliteRepository implements Sync<AdminJobsRepo> {
  claim(j: { id: string; kind: string; studyId: string; actor: string; owner: LeaseOwner; now: number; message: string }): boolean {
    return this.q.run(ADMIN_JOB_SQL.claim, j.id, j.kind, j.studyId, j.actor, j.owner.node, j.owner.incarnation, j.message, j.now, j.now) === 1;
  }

  progress(id: string, owner: LeaseOwner, p: { done: number; total: number; message: string }, now: number): boolean {
    return this.q.run(ADMIN_JOB_SQL.progress, p.done, p.total, p.message, now, id, owner.node, owner.incarnation) === 1;
  }

  finish(id: string, o: AdminJobOutcome, now: number): boolean {
    return this.q.run(ADMIN_JOB_SQL.finish, o.state, o.done, o.total, o.message, resultJson(o.result), now, now, id) === 1;
  }

  take(id: string, now: number): boolean {
    return this.q.run(ADMIN_JOB_SQL.take, now, id) === 1;
  }

  get(id: string): AdminJobRow | undefined {
    const r = this.q.one<RawAdminJob>(ADMIN_JOB_SQL.get, id);
    return r && toAdminJob(r);
  }

  latest(studyId: string, kind: string): AdminJobRow | undefined {
    const r = this.q.one<RawAdminJob>(ADMIN_JOB_SQL.latest, studyId, kind);
    return r && toAdminJob(r);
  }

  abandonStale(staleBefore: number, owner: LeaseOwner, now: number): AdminJobRow[] {
    return inCreationOrder(this.q.rows<RawAdminJob>(ADMIN_JOB_SQL.abandonStale, ABANDONED_JOB_MESSAGE, now, staleBefore, owner.node, owner.incarnation).map(toAdminJob));
  }
}
