import {
  type AdminSessionListRepo,
  type SessionFacts,
  type SessionListFilter,
  type SessionListSortKey,
} from '../../contract/sessionList';
import type { Runner } from '../connection';
import { SESSION_LIST_SORT_SQL, toSessionFacts, type RawSessionFacts } from '../../rows/sessionList';

/** The sessions page and dashboard read models on PostgreSQL (see sessionListTypes.ts). */

const FACTS_SELECT = `SELECT s.id, s.task_id, s.condition_id, s.status, s.step, s.is_pilot, s.created_at, s.consented_at, s.submitted_at, s.ended_at,
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages,
    (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
    (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens,
    q.quality AS quality
  FROM sessions s LEFT JOIN judge_quality q ON q.session_id = s.id`;

type Param = string | number | null;

export class PgAdminSessionList implements AdminSessionListRepo {
  constructor(private readonly db: Runner) {}

  async listPage(
    studyId: string,
    filter: SessionListFilter,
    sort: SessionListSortKey,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: SessionFacts[] }> {
    // The filters name computed columns (quality, counts), so they apply to the facts as a subquery.
    const where: string[] = [];
    const params: Param[] = [studyId];
    const add = (clause: (n: number) => string, value?: Param) => {
      if (value !== undefined) params.push(value);
      where.push(clause(params.length));
    };
    if (filter.status) add((n) => `f.status = $${n}`, filter.status);
    if (filter.conditionId) add((n) => `f.condition_id = $${n}`, filter.conditionId);
    if (filter.pilot === 'exclude') add(() => 'f.is_pilot = 0');
    if (filter.pilot === 'only') add(() => 'f.is_pilot = 1');
    if (filter.judged === 'judged') add(() => 'f.quality IS NOT NULL');
    if (filter.judged === 'unjudged') add(() => 'f.quality IS NULL');
    if (filter.qualityMin !== undefined) add((n) => `f.quality >= $${n}`, filter.qualityMin);
    if (filter.qualityMax !== undefined) add((n) => `f.quality <= $${n}`, filter.qualityMax);
    if (filter.createdFrom !== undefined) add((n) => `f.created_at >= $${n}`, filter.createdFrom);
    if (filter.createdTo !== undefined) add((n) => `f.created_at < $${n}`, filter.createdTo);
    if (filter.sessionIds) add((n) => `f.id IN (SELECT jsonb_array_elements_text($${n}::jsonb))`, JSON.stringify(filter.sessionIds));
    const filtered = `SELECT * FROM (${FACTS_SELECT} WHERE s.study_id = $1) AS f${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
    const counted = await this.db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM (${filtered}) AS counted`, params);
    const key = SESSION_LIST_SORT_SQL[sort];
    const dir = order === 'asc' ? 'ASC' : 'DESC';
    const n = params.length;
    const rows = await this.db.rows<RawSessionFacts>(
      `${filtered} ORDER BY (${key}) IS NULL, ${key} ${dir}, f.created_at DESC, f.id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, limit, offset],
    );
    return { total: counted?.n ?? 0, rows: rows.map(toSessionFacts) };
  }

  async sessionIds(studyId: string): Promise<string[]> {
    return (await this.db.rows<{ id: string }>('SELECT id FROM sessions WHERE study_id = $1 ORDER BY id', [studyId])).map((r) => r.id);
  }

  async stepsReached(studyId: string): Promise<{ sessionId: string; step: string }[]> {
    const rows = await this.db.rows<{ session_id: string; step: string | null }>(
      `SELECT DISTINCT e.session_id, (e.payload::jsonb ->> 'to') AS step
         FROM events e JOIN sessions s ON s.id = e.session_id
        WHERE s.study_id = $1 AND e.type = 'step.changed'`,
      [studyId],
    );
    return rows.filter((r) => r.step !== null).map((r) => ({ sessionId: r.session_id, step: r.step! }));
  }

  async allFacts(studyId: string, pilot: 'include' | 'exclude' | 'only'): Promise<SessionFacts[]> {
    const pilotWhere = pilot === 'exclude' ? ' AND s.is_pilot = 0' : pilot === 'only' ? ' AND s.is_pilot = 1' : '';
    return (await this.db.rows<RawSessionFacts>(`${FACTS_SELECT} WHERE s.study_id = $1${pilotWhere} ORDER BY s.created_at, s.id`, [studyId])).map(toSessionFacts);
  }
}
