import type { SqliteDatabase } from '../database';
import {
  type AdminSessionListRepo,
  type SessionFacts,
  type SessionListFilter,
  type SessionListSortKey,
} from '../../contract/sessionList';
import type { Sync } from '../sync';
import { SESSION_LIST_SORT_SQL, toSessionFacts, type RawSessionFacts } from '../../rows/sessionList';

/** The sessions page and dashboard read models on SQLite (see sessionListTypes.ts). */

export class AdminSessionListRepository implements Sync<AdminSessionListRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** judge_quality comes with the judge's migration; without it every session is unjudged. */
  private qualityJoin(): { select: string; join: string } {
    const has = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'judge_quality'").get() !== undefined;
    return has ? { select: 'q.quality AS quality', join: 'LEFT JOIN judge_quality q ON q.session_id = s.id' } : { select: 'NULL AS quality', join: '' };
  }

  private factsSelect(): string {
    const quality = this.qualityJoin();
    return `SELECT s.id, s.task_id, s.condition_id, s.status, s.step, s.is_pilot, s.created_at, s.consented_at, s.submitted_at, s.ended_at,
        (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages,
        (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
        (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens,
        ${quality.select}
      FROM sessions s ${quality.join}`;
  }

  /** A page of the study's sessions matching `filter`, and how many match in all. */
  listPage(
    studyId: string,
    filter: SessionListFilter,
    sort: SessionListSortKey,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
  ): { total: number; rows: SessionFacts[] } {
    // The filters name computed columns (quality, counts), so they apply to the facts as a subquery.
    const where: string[] = [];
    const params: unknown[] = [studyId];
    const add = (clause: string, ...values: unknown[]) => {
      where.push(clause);
      params.push(...values);
    };
    if (filter.status) add('f.status = ?', filter.status);
    if (filter.conditionId) add('f.condition_id = ?', filter.conditionId);
    if (filter.pilot === 'exclude') add('f.is_pilot = 0');
    if (filter.pilot === 'only') add('f.is_pilot = 1');
    if (filter.judged === 'judged') add('f.quality IS NOT NULL');
    if (filter.judged === 'unjudged') add('f.quality IS NULL');
    if (filter.qualityMin !== undefined) add('f.quality >= ?', filter.qualityMin);
    if (filter.qualityMax !== undefined) add('f.quality <= ?', filter.qualityMax);
    if (filter.createdFrom !== undefined) add('f.created_at >= ?', filter.createdFrom);
    if (filter.createdTo !== undefined) add('f.created_at < ?', filter.createdTo);
    if (filter.sessionIds) add('f.id IN (SELECT value FROM json_each(?))', JSON.stringify(filter.sessionIds));
    const filtered = `SELECT * FROM (${this.factsSelect()} WHERE s.study_id = ?) AS f${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM (${filtered}) AS counted`).get(...params) as { n: number }).n;
    const key = SESSION_LIST_SORT_SQL[sort];
    const dir = order === 'asc' ? 'ASC' : 'DESC';
    const rows = this.db
      .prepare(`${filtered} ORDER BY (${key}) IS NULL, ${key} ${dir}, f.created_at DESC, f.id LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as RawSessionFacts[];
    return { total, rows: rows.map(toSessionFacts) };
  }

  /** Every session id of the study (for the pseudonym search, which is keyed HMAC and so cannot run in SQL). */
  sessionIds(studyId: string): string[] {
    return (this.db.prepare('SELECT id FROM sessions WHERE study_id = ? ORDER BY id').all(studyId) as { id: string }[]).map((r) => r.id);
  }

  /** The steps each session of the study moved to (its step.changed events), for the completion funnel. */
  stepsReached(studyId: string): { sessionId: string; step: string }[] {
    const rows = this.db
      .prepare(
        `SELECT DISTINCT e.session_id, json_extract(e.payload, '$.to') AS step
         FROM events e JOIN sessions s ON s.id = e.session_id
         WHERE s.study_id = ? AND e.type = 'step.changed'`,
      )
      .all(studyId) as { session_id: string; step: string | null }[];
    return rows.filter((r) => r.step !== null).map((r) => ({ sessionId: r.session_id, step: r.step! }));
  }

  /** Every session of the study with its counts, oldest first (the dashboard's input). */
  allFacts(studyId: string, pilot: 'include' | 'exclude' | 'only'): SessionFacts[] {
    const pilotWhere = pilot === 'exclude' ? ' AND s.is_pilot = 0' : pilot === 'only' ? ' AND s.is_pilot = 1' : '';
    const rows = this.db.prepare(`${this.factsSelect()} WHERE s.study_id = ?${pilotWhere} ORDER BY s.created_at, s.id`).all(studyId) as RawSessionFacts[];
    return rows.map(toSessionFacts);
  }
}
