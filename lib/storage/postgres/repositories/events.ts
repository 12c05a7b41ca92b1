import type { EventRow, EventsRepo, UnfinishedReply } from '../../contract/store';
import { toEventRow, type EventRaw } from '../../rows/events';
import { EVENT_SQL } from '../../sql/events';
import type { Runner } from '../connection';

/** The append-only trajectory (a trigger refuses UPDATE). There is no update or delete here on purpose. */
export class PgEvents implements EventsRepo {
  constructor(private readonly db: Runner) {}

  /** seq is assigned by tandem_append_event (migration 001): per-session row lock, then MAX + 1. */
  async append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): Promise<number> {
    const r = await this.db.one<{ seq: number }>(EVENT_SQL.append.postgres, [sessionId, type, JSON.stringify(payload ?? null), serverTs, clientTs]);
    return r!.seq;
  }

  async listForSession(sessionId: string): Promise<EventRow[]> {
    return (await this.db.rows<EventRaw>(EVENT_SQL.listForSession.postgres, [sessionId])).map(toEventRow);
  }

  async count(sessionId?: string): Promise<number> {
    const r =
      sessionId === undefined
        ? await this.db.one<{ n: number }>(EVENT_SQL.countAll.postgres)
        : await this.db.one<{ n: number }>(EVENT_SQL.countInSession.postgres, [sessionId]);
    return r!.n;
  }

  async listUnfinishedReplies(): Promise<UnfinishedReply[]> {
    return this.db.rows<UnfinishedReply>(EVENT_SQL.listUnfinishedReplies.postgres);
  }
}
