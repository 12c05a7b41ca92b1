import type { SessionAt, SessionChangeEvent, SessionChangeFrom, SessionPatch, SessionRow, SessionsRepo } from '../../contract/store';
import { toSessionRow, type SessionRaw } from '../../rows/sessions';
import { changePatch, SESSION_COUNT_BY, SESSION_SQL, sessionUpdate } from '../../sql/sessions';
import type { EngineSql } from '../../sql/engineSql';
import type { Runner } from '../connection';

export class PgSessions implements SessionsRepo {
  constructor(private readonly db: Runner) {}

  async insert(s: Pick<SessionRow, 'id' | 'studyId' | 'taskId' | 'conditionId' | 'isPilot' | 'createdAt'>): Promise<SessionRow> {
    const r = await this.db.one<SessionRaw>(SESSION_SQL.insert.postgres, [s.id, s.studyId, s.taskId, s.conditionId, s.isPilot ? 1 : 0, s.createdAt, s.createdAt]);
    return toSessionRow(r!);
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const r = await this.db.one<SessionRaw>(SESSION_SQL.get.postgres, [id]);
    return r && toSessionRow(r);
  }

  /**
   * FOR NO KEY UPDATE: the same lock tandem_append_event takes, so a state change and the events it appends
   * serialise per session, while foreign-key checks of rows referencing the session are not blocked.
   * Outside a transaction the lock ends with the statement (as the contract allows).
   */
  async getForUpdate(id: string): Promise<SessionRow | undefined> {
    const r = await this.db.one<SessionRaw>(SESSION_SQL.getForUpdate.postgres, [id]);
    return r && toSessionRow(r);
  }

  async listByStudy(studyId: string): Promise<SessionRow[]> {
    return (await this.db.rows<SessionRaw>(SESSION_SQL.listByStudy.postgres, [studyId])).map(toSessionRow);
  }

  async update(id: string, patch: SessionPatch, now: number): Promise<SessionRow> {
    const u = sessionUpdate(patch, now, id);
    const r = await this.db.one<SessionRaw>(u.postgres, u.values);
    if (!r) throw new Error(`session ${id} does not exist`);
    return toSessionRow(r);
  }

  /** One call of tandem_change_session_from (migrations 033, 036) without a condition: the events and the row's one update. */
  async change(id: string, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number): Promise<{ seqs: number[]; session: SessionRow }> {
    const a = await this.changeFrom(id, null, events, patch, now);
    // Without a condition the function changes any row it finds.
    if (!a?.changed) throw new Error(`session ${id} does not exist`);
    return { seqs: a.seqs, session: a.session };
  }

  /** One call of tandem_change_session_from: the UPDATE checks the step and status (see the contract). */
  async changeFrom(id: string, from: SessionAt | null, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number): Promise<SessionChangeFrom | undefined> {
    const r = await this.db.one<{ answer: string | null }>(SESSION_SQL.change.postgres, changeFromParams(id, from, events, patch, now));
    return changeFromAnswer(r?.answer ?? null, events.length);
  }

  private async countBy(q: { all: EngineSql; fresh: EngineSql }, studyId: string, unconsentedSince: number | undefined): Promise<Map<string, number>> {
    const rows =
      unconsentedSince === undefined
        ? await this.db.rows<{ k: string; n: number }>(q.all.postgres, [studyId])
        : await this.db.rows<{ k: string; n: number }>(q.fresh.postgres, [studyId, studyId, unconsentedSince]);
    return new Map(rows.map((r) => [r.k, r.n]));
  }

  countByCondition(studyId: string, unconsentedSince?: number): Promise<Map<string, number>> {
    return this.countBy(SESSION_COUNT_BY.condition, studyId, unconsentedSince);
  }

  countByTask(studyId: string, unconsentedSince?: number): Promise<Map<string, number>> {
    return this.countBy(SESSION_COUNT_BY.task, studyId, unconsentedSince);
  }

  async markSimulated(id: string): Promise<void> {
    await this.db.run(SESSION_SQL.markSimulated.postgres, [id]);
  }

  async countActive(studyId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(SESSION_SQL.countActive.postgres, [studyId]))!.n;
  }

  async listActiveConsentedBefore(consentedBefore: number): Promise<SessionRow[]> {
    return (await this.db.rows<SessionRaw>(SESSION_SQL.listActiveConsentedBefore.postgres, [consentedBefore])).map(toSessionRow);
  }

  async count(studyId?: string): Promise<number> {
    const r =
      studyId === undefined
        ? await this.db.one<{ n: number }>(SESSION_SQL.countAll.postgres)
        : await this.db.one<{ n: number }>(SESSION_SQL.countInStudy.postgres, [studyId]);
    return r!.n;
  }

  async storageBytes(id: string): Promise<number> {
    const r = await this.db.one<{ bytes: number }>(SESSION_SQL.storageBytes.postgres, [id]);
    return r?.bytes ?? 0;
  }
}

/** tandem_change_session_from's eight parameters (migration 036), which functions built on it take first. */
export function changeFromParams(id: string, from: SessionAt | null, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number) {
  return [
    id,
    from?.step ?? null,
    from?.status ?? null,
    events.map((e) => e.type),
    events.map((e) => JSON.stringify(e.payload ?? null)),
    events.map((e) => e.clientTs),
    changePatch(patch),
    now,
  ];
}

/** tandem_change_session_from's answer (NULL: no such session) as SessionsRepo.changeFrom's. */
export function changeFromAnswer(answer: string | null, eventCount: number): SessionChangeFrom | undefined {
  if (!answer) return undefined;
  const a = JSON.parse(answer) as { session: SessionRaw; firstSeq?: number | null; changed: boolean };
  const session = toSessionRow(a.session);
  return a.changed ? { changed: true, seqs: Array.from({ length: eventCount }, (_, i) => a.firstSeq! + i), session } : { changed: false, session };
}
