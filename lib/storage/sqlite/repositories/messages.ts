import { cachedStatement, type SqliteDatabase } from '../database';
import type { MessageRow, MessagesRepo } from '../../contract/store';
import { messageValues, toMessageRow, type MessageRaw } from '../../rows/messages';
import { MESSAGE_SQL } from '../../sql/messages';
import { SESSION_SQL } from '../../sql/sessions';
import type { Sync } from '../sync';

export class MessagesRepository implements Sync<MessagesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(m: MessageRow): void {
    cachedStatement(this.db, MESSAGE_SQL.insert.sqlite).run(...messageValues(m));
    this.countBytes(m);
  }

  insertIfNewClientId(m: MessageRow & { clientId: string }): boolean {
    const r = cachedStatement(this.db, MESSAGE_SQL.insertIfNewClientId.sqlite).run(...messageValues(m));
    if (r.changes !== 1) return false;
    this.countBytes(m);
    return true;
  }

  /** The per-session storage budget's counter (sessions.storageBytes). */
  private countBytes(m: MessageRow): void {
    cachedStatement(this.db, SESSION_SQL.addStoredBytes.sqlite).run(Buffer.byteLength(m.text, 'utf8'), m.sessionId);
  }

  get(id: string): MessageRow | undefined {
    const r = cachedStatement(this.db, MESSAGE_SQL.get.sqlite).get(id) as MessageRaw | undefined;
    return r && toMessageRow(r);
  }

  findByClientId(sessionId: string, clientId: string): MessageRow | undefined {
    const r = cachedStatement(this.db, MESSAGE_SQL.findByClientId.sqlite).get(sessionId, clientId) as MessageRaw | undefined;
    return r && toMessageRow(r);
  }

  /** All messages of a session in trajectory order. */
  listForSession(sessionId: string): MessageRow[] {
    return (cachedStatement(this.db, MESSAGE_SQL.listForSession.sqlite).all(sessionId) as MessageRaw[]).map(toMessageRow);
  }

  count(sessionId?: string): number {
    const r = (sessionId === undefined
      ? cachedStatement(this.db, MESSAGE_SQL.countAll.sqlite).get()
      : cachedStatement(this.db, MESSAGE_SQL.countInSession.sqlite).get(sessionId)) as { n: number };
    return r.n;
  }
}
