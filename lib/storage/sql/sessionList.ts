/** The sessions page's queries (AdminSessionListRepo) on both engines; the page's filters build its WHERE once. */
import type { AdminSessionListRepo } from '../contract/sessionList';
import { SESSION_LIST_SORT_SQL } from '../rows/sessionList';
import { both, numbered, variant, type EngineSql } from './engineSql';

/** Every session with its counts and judged quality (judge_quality exists once the store has migrated). */
const FACTS_SELECT = `SELECT s.id, s.task_id, s.condition_id, s.status, s.step, s.is_pilot, s.created_at, s.consented_at, s.submitted_at, s.ended_at,
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages,
    (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
    (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens,
    q.quality AS quality
  FROM sessions s LEFT JOIN judge_quality q ON q.session_id = s.id`;

/** `f.id IN (the ids of a JSON array parameter)`. */
const IDS_IN_JSON = variant('json', {
  sqlite: 'f.id IN (SELECT value FROM json_each(?))',
  postgres: 'f.id IN (SELECT jsonb_array_elements_text(?::jsonb))',
});

type Param = string | number | null;

/** AdminSessionListRepo.listPage's parameters: study, filter, sort key, order, limit, offset. */
export type ListPageArgs = Parameters<AdminSessionListRepo['listPage']>;

/**
 * The page's two queries (how many match; the page itself) and their parameters, the same on both engines:
 * the filters name computed columns (quality, counts), so they apply to the facts as a subquery. The sort key
 * is whitelisted (SESSION_LIST_SORT_SQL), NULLs last either way, then newest first, then id.
 */
export function sessionListPage(...[studyId, filter, sort, order, limit, offset]: ListPageArgs): { count: EngineSql; page: EngineSql; params: Param[]; pageParams: Param[] } {
  const where: EngineSql[] = [];
  const params: Param[] = [studyId];
  const add = (clause: EngineSql | string, ...values: Param[]) => {
    where.push(typeof clause === 'string' ? { sqlite: clause, postgres: clause } : clause);
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
  if (filter.sessionIds) add(IDS_IN_JSON, JSON.stringify(filter.sessionIds));
  const key = SESSION_LIST_SORT_SQL[sort];
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  // Written with `?` throughout; PostgreSQL's text is numbered once the whole statement is assembled.
  const build = (engine: 'sqlite' | 'postgres') => {
    const filtered = `SELECT * FROM (${FACTS_SELECT} WHERE s.study_id = ?) AS f${where.length ? ` WHERE ${where.map((w) => w[engine]).join(' AND ')}` : ''}`;
    return {
      count: `SELECT COUNT(*) AS n FROM (${filtered}) AS counted`,
      page: `${filtered} ORDER BY (${key}) IS NULL, ${key} ${dir}, f.created_at DESC, f.id LIMIT ? OFFSET ?`,
    };
  };
  const s = build('sqlite');
  const p = build('postgres');
  return {
    count: { sqlite: s.count, postgres: numbered(p.count) },
    page: { sqlite: s.page, postgres: numbered(p.page) },
    params,
    pageParams: [...params, limit, offset],
  };
}

export const SESSION_LIST_SQL = {
  sessionIds: both('SELECT id FROM sessions WHERE study_id = ? ORDER BY id'),
  /** The steps each session of the study moved to (its step.changed events), for the completion funnel. */
  stepsReached: variant('json', {
    sqlite: `SELECT DISTINCT e.session_id, json_extract(e.payload, '$.to') AS step
         FROM events e JOIN sessions s ON s.id = e.session_id
        WHERE s.study_id = ? AND e.type = 'step.changed' ORDER BY e.session_id, step`,
    postgres: `SELECT DISTINCT e.session_id, (e.payload::jsonb ->> 'to') AS step
         FROM events e JOIN sessions s ON s.id = e.session_id
        WHERE s.study_id = $1 AND e.type = 'step.changed' ORDER BY e.session_id, step`,
  }),
  allFacts: {
    include: both(`${FACTS_SELECT} WHERE s.study_id = ? ORDER BY s.created_at, s.id`),
    exclude: both(`${FACTS_SELECT} WHERE s.study_id = ? AND s.is_pilot = 0 ORDER BY s.created_at, s.id`),
    only: both(`${FACTS_SELECT} WHERE s.study_id = ? AND s.is_pilot = 1 ORDER BY s.created_at, s.id`),
  },
} as const;
