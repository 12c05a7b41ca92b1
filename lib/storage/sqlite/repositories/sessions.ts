import { SqliteRepository } from '../statements';
import type { SessionAt, SessionChangeEvent, SessionChangeFrom, SessionPatch, SessionRow, SessionsRepo } from '../../contract/store';
import { toSessionRow, type SessionRaw } from '../../rows/sessions';
import { SESSION_COUNT_BY, SESSION_SQL, sessionUpdate } from '../../sql/sessions';
import { insertEvents } from './events';
import type { EngineSql } from '../../sql/engineSql';
import type { Sync } from '../sync';

export class SessionsRepository extends SqliteRepository implements Sync<SessionsRepo> {
  insert(s: Pick<SessionRow, 'id' | 'studyId' | 'taskId' | 'conditionId' | 'isPilot' | 'createdAt'>): SessionRow {
    return toSessionRow(this.q.one<SessionRaw>(SESSION_SQL.insert, s.id, s.studyId, s.taskId, s.conditionId, s.isPilot ? 1 : 0, s.createdAt, s.createdAt)!);
  }

  get(id: string): SessionRow | undefined {
    const r = this.q.one<SessionRaw>(SESSION_SQL.get, id);
    return r && toSessionRow(r);
  }

  /** A transaction on SQLite holds the write lock (BEGIN IMMEDIATE), so a plain read already serialises. */
  getForUpdate(id: string): SessionRow | undefined {
    const r = this.q.one<SessionRaw>(SESSION_SQL.getForUpdate, id);
    return r && toSessionRow(r);
  }

  listByStudy(studyId: string): SessionRow[] {
    return this.q.rows<SessionRaw>(SESSION_SQL.listByStudy, studyId).map(toSessionRow);
  }

  update(id: string, patch: SessionPatch, now: number): SessionRow {
    const u = sessionUpdate(patch, now, id);
    const r = this.q.one<SessionRaw>(u, ...u.values);
    if (!r) throw new Error(`session ${id} does not exist`);
    return toSessionRow(r);
  }

  /** changeFrom without a condition: the update, then the events; throws for an unknown session. */
  change(id: string, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number): { seqs: number[]; session: SessionRow } {
    const a = this.changeFrom(id, null, events, patch, now);
    if (!a?.changed) throw new Error(`session ${id} does not exist`);
    return { seqs: a.seqs, session: a.session };
  }

  /**
   * The UPDATE, which checks `from` when given (see the contract), then the events (insertEvents, as events.append
   * writes them, the counter added once). Inside the caller's transaction, as the contract asks, the statements run in
   * it directly (a nested better-sqlite3 transaction would add a savepoint per call; a failure rolls back the caller's
   * whole transaction); called alone, they get a transaction of their own.
   */
  changeFrom(id: string, from: SessionAt | null, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number): SessionChangeFrom | undefined {
    if (!this.db.inTransaction) return this.db.transaction(() => this.changeFrom(id, from, events, patch, now))();
    const u = sessionUpdate(patch, now, id, from ?? undefined);
    const r = this.q.one<SessionRaw>(u, ...u.values);
    if (!r) {
      const current = this.get(id);
      return current && { changed: false, session: current };
    }
    return { changed: true, seqs: events.length === 0 ? [] : insertEvents(this.q, id, events, now), session: toSessionRow(r) };
  }

  /** Number of non-pilot sessions per condition (conditions with none are absent); see SessionsRepo. */
  countByCondition(studyId: string, unconsentedSince?: number): Map<string, number> {
    return this.countBy(SESSION_COUNT_BY.condition, studyId, unconsentedSince);
  }

  /** Number of non-pilot sessions per task (tasks with none are absent); see SessionsRepo. */
  countByTask(studyId: string, unconsentedSince?: number): Map<string, number> {
    return this.countBy(SESSION_COUNT_BY.task, studyId, unconsentedSince);
  }

  markSimulated(id: string): void {
    this.q.run(SESSION_SQL.markSimulated, id);
  }

  countActive(studyId: string): number {
    return this.q.one<{ n: number }>(SESSION_SQL.countActive, studyId)!.n;
  }

  private countBy(q: { all: EngineSql; fresh: EngineSql }, studyId: string, unconsentedSince: number | undefined): Map<string, number> {
    const rows =
      unconsentedSince === undefined ? this.q.rows<{ k: string; n: number }>(q.all, studyId) : this.q.rows<{ k: string; n: number }>(q.fresh, studyId, studyId, unconsentedSince);
    return new Map(rows.map((r) => [r.k, r.n]));
  }

  /** Active sessions whose deadline may have passed (consented before `consentedBefore`). */
  listActiveConsentedBefore(consentedBefore: number): SessionRow[] {
    return this.q.rows<SessionRaw>(SESSION_SQL.listActiveConsentedBefore, consentedBefore).map(toSessionRow);
  }

  count(studyId?: string): number {
    const r = studyId === undefined ? this.q.one<{ n: number }>(SESSION_SQL.countAll) : this.q.one<{ n: number }>(SESSION_SQL.countInStudy, studyId);
    return r!.n;
  }

  storageBytes(id: string): number {
    const r = this.q.one<{ bytes: number }>(SESSION_SQL.storageBytes, id);
    return r?.bytes ?? 0;
  }
}
