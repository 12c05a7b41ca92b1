import { SqliteRepository } from '../statements';
import type { MessageRow, MessagesRepo } from '../../contract/store';
import { messageValues, toMessageRow, type MessageRaw } from '../../rows/messages';
import { MESSAGE_SQL } from '../../sql/messages';
import { SESSION_SQL } from '../../sql/sessions';
import type { Sync } from '../sync';

export class MessagesRepository extends SqliteRepository implements Sync<MessagesRepo> {
  insert(m: MessageRow): void {
    this.q.run(MESSAGE_SQL.insert, ...messageValues(m));
    this.countBytes(m);
  }

  insertIfNewClientId(m: MessageRow & { clientId: string }): boolean {
    const r = this.q.run(MESSAGE_SQL.insertIfNewClientId, ...messageValues(m));
    if (r !== 1) return false;
    this.countBytes(m);
    return true;
  }

  /** The per-session storage budget's counter (sessions.storageBytes). */
  private countBytes(m: MessageRow): void {
    this.q.run(SESSION_SQL.addStoredBytes, Buffer.byteLength(m.text, 'utf8'), m.sessionId);
  }

  get(id: string): MessageRow | undefined {
    const r = this.q.one<MessageRaw>(MESSAGE_SQL.get, id);
    return r && toMessageRow(r);
  }

  findByClientId(sessionId: string, clientId: string): MessageRow | undefined {
    const r = this.q.one<MessageRaw>(MESSAGE_SQL.findByClientId, sessionId, clientId);
    return r && toMessageRow(r);
  }

  /** All messages of a session in trajectory order. */
  listForSession(sessionId: string): MessageRow[] {
    return this.q.rows<MessageRaw>(MESSAGE_SQL.listForSession, sessionId).map(toMessageRow);
  }

  count(sessionId?: string): number {
    const r = sessionId === undefined ? this.q.one<{ n: number }>(MESSAGE_SQL.countAll) : this.q.one<{ n: number }>(MESSAGE_SQL.countInSession, sessionId);
    return r!.n;
  }
}
