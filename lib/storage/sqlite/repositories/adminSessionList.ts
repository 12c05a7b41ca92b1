import type { AdminSessionListRepo, SessionFacts } from '../../contract/sessionList';
import { toSessionFacts, type RawSessionFacts } from '../../rows/sessionList';
import { SESSION_LIST_SQL, sessionListPage, type ListPageArgs } from '../../sql/sessionList';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** The sessions page and dashboard read models on SQLite (see contract/sessionList.ts). */
export class AdminSessionListRepository extends SqliteRepository implements Sync<AdminSessionListRepo> {
  /** A page of the study's sessions matching `filter`, and how many match in all. */
  listPage(...args: ListPageArgs): { total: number; rows: SessionFacts[] } {
    const page = sessionListPage(...args);
    const total = this.q.one<{ n: number }>(page.count, ...page.params)!.n;
    return { total, rows: this.q.rows<RawSessionFacts>(page.page, ...page.pageParams).map(toSessionFacts) };
  }

  /** Every session id of the study (for the pseudonym search, which is keyed HMAC and so cannot run in SQL). */
  sessionIds(studyId: string): string[] {
    return this.q.rows<{ id: string }>(SESSION_LIST_SQL.sessionIds, studyId).map((r) => r.id);
  }

  /** The steps each session of the study moved to (its step.changed events), for the completion funnel. */
  stepsReached(studyId: string): { sessionId: string; step: string }[] {
    const rows = this.q.rows<{ session_id: string; step: string | null }>(SESSION_LIST_SQL.stepsReached, studyId);
    return rows.filter((r) => r.step !== null).map((r) => ({ sessionId: r.session_id, step: r.step! }));
  }

  /** Every session of the study with its counts, oldest first (the dashboard's input). */
  allFacts(studyId: string, pilot: 'include' | 'exclude' | 'only'): SessionFacts[] {
    return this.q.rows<RawSessionFacts>(SESSION_LIST_SQL.allFacts[pilot], studyId).map(toSessionFacts);
  }
}
