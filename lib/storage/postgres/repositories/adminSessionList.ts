import type { AdminSessionListRepo, SessionFacts } from '../../contract/sessionList';
import { toSessionFacts, type RawSessionFacts } from '../../rows/sessionList';
import { SESSION_LIST_SQL, sessionListPage, type ListPageArgs } from '../../sql/sessionList';
import type { Runner } from '../connection';

/** The sessions page and dashboard read models on PostgreSQL (see contract/sessionList.ts). */
export class PgAdminSessionList implements AdminSessionListRepo {
  constructor(private readonly db: Runner) {}

  async listPage(...args: ListPageArgs): Promise<{ total: number; rows: SessionFacts[] }> {
    const page = sessionListPage(...args);
    const counted = await this.db.one<{ n: number }>(page.count.postgres, page.params);
    const rows = await this.db.rows<RawSessionFacts>(page.page.postgres, page.pageParams);
    return { total: counted?.n ?? 0, rows: rows.map(toSessionFacts) };
  }

  async sessionIds(studyId: string): Promise<string[]> {
    return (await this.db.rows<{ id: string }>(SESSION_LIST_SQL.sessionIds.postgres, [studyId])).map((r) => r.id);
  }

  async stepsReached(studyId: string): Promise<{ sessionId: string; step: string }[]> {
    const rows = await this.db.rows<{ session_id: string; step: string | null }>(SESSION_LIST_SQL.stepsReached.postgres, [studyId]);
    return rows.filter((r) => r.step !== null).map((r) => ({ sessionId: r.session_id, step: r.step! }));
  }

  async allFacts(studyId: string, pilot: 'include' | 'exclude' | 'only'): Promise<SessionFacts[]> {
    return (await this.db.rows<RawSessionFacts>(SESSION_LIST_SQL.allFacts[pilot].postgres, [studyId])).map(toSessionFacts);
  }
}
