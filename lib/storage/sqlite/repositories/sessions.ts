import { cachedStatement, type SqliteDatabase } from '../database';
import type { SessionPatch, SessionRow, SessionsRepo } from '../../contract/store';
import { toSessionRow, type SessionRaw } from '../../rows/sessions';
import { SESSION_COUNT_BY, SESSION_SQL, sessionUpdate } from '../../sql/sessions';
import type { EngineSql } from '../../sql/engineSql';
import type { Sync } from '../sync';

export class SessionsRepository implements Sync<SessionsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(s: Pick<SessionRow, 'id' | 'studyId' | 'taskId' | 'conditionId' | 'isPilot' | 'createdAt'>): SessionRow {
    const r = cachedStatement(this.db, SESSION_SQL.insert.sqlite).get(s.id, s.studyId, s.taskId, s.conditionId, s.isPilot ? 1 : 0, s.createdAt, s.createdAt);
    return toSessionRow(r as SessionRaw);
  }

  get(id: string): SessionRow | undefined {
    const r = cachedStatement(this.db, SESSION_SQL.get.sqlite).get(id) as SessionRaw | undefined;
    return r && toSessionRow(r);
  }

  /** A transaction on SQLite holds the write lock (BEGIN IMMEDIATE), so a plain read already serialises. */
  getForUpdate(id: string): SessionRow | undefined {
    const r = cachedStatement(this.db, SESSION_SQL.getForUpdate.sqlite).get(id) as SessionRaw | undefined;
    return r && toSessionRow(r);
  }

  listByStudy(studyId: string): SessionRow[] {
    return (cachedStatement(this.db, SESSION_SQL.listByStudy.sqlite).all(studyId) as SessionRaw[]).map(toSessionRow);
  }

  update(id: string, patch: SessionPatch, now: number): SessionRow {
    const u = sessionUpdate(patch, now, id);
    const r = cachedStatement(this.db, u.sqlite).get(...u.values) as SessionRaw | undefined;
    if (!r) throw new Error(`session ${id} does not exist`);
    return toSessionRow(r);
  }

  /** Number of non-pilot sessions per condition (conditions with none are absent); see SessionsRepo. */
  countByCondition(studyId: string, unconsentedSince?: number): Map<string, number> {
    return this.countBy(SESSION_COUNT_BY.condition, studyId, unconsentedSince);
  }

  /** Number of non-pilot sessions per task (tasks with none are absent); see SessionsRepo. */
  countByTask(studyId: string, unconsentedSince?: number): Map<string, number> {
    return this.countBy(SESSION_COUNT_BY.task, studyId, unconsentedSince);
  }

  countActive(studyId: string): number {
    return (cachedStatement(this.db, SESSION_SQL.countActive.sqlite).get(studyId) as { n: number }).n;
  }

  private countBy(q: { all: EngineSql; fresh: EngineSql }, studyId: string, unconsentedSince: number | undefined): Map<string, number> {
    const rows = (
      unconsentedSince === undefined
        ? cachedStatement(this.db, q.all.sqlite).all(studyId)
        : cachedStatement(this.db, q.fresh.sqlite).all(studyId, unconsentedSince)
    ) as { k: string; n: number }[];
    return new Map(rows.map((r) => [r.k, r.n]));
  }

  /** Active sessions whose deadline may have passed (consented before `consentedBefore`). */
  listActiveConsentedBefore(consentedBefore: number): SessionRow[] {
    return (cachedStatement(this.db, SESSION_SQL.listActiveConsentedBefore.sqlite).all(consentedBefore) as SessionRaw[]).map(toSessionRow);
  }

  count(studyId?: string): number {
    const r = (studyId === undefined
      ? cachedStatement(this.db, SESSION_SQL.countAll.sqlite).get()
      : cachedStatement(this.db, SESSION_SQL.countInStudy.sqlite).get(studyId)) as { n: number };
    return r.n;
  }

  storageBytes(id: string): number {
    const r = cachedStatement(this.db, SESSION_SQL.storageBytes.sqlite).get(id) as { bytes: number } | undefined;
    return r?.bytes ?? 0;
  }
}
