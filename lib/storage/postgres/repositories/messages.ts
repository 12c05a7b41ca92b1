import type { MessageRow, MessagesRepo } from '../../contract/store';
import { messageValues, toMessageRow, type MessageRaw } from '../../rows/messages';
import { MESSAGE_SQL } from '../../sql/messages';
import type { Runner } from '../connection';

export class PgMessages implements MessagesRepo {
  constructor(private readonly db: Runner) {}

  /** The insert and the storage budget's counter are one statement (MESSAGE_SQL.insert). */
  async insert(m: MessageRow): Promise<void> {
    await this.db.run(MESSAGE_SQL.insert.postgres, messageValues(m));
  }

  /**
   * ON CONFLICT on the (session_id, client_id) unique constraint: a second transaction inserting the same
   * client id waits on the first one's index entry and, once that commits, does nothing (returns false).
   */
  async insertIfNewClientId(m: MessageRow & { clientId: string }): Promise<boolean> {
    return (await this.db.run(MESSAGE_SQL.insertIfNewClientId.postgres, messageValues(m))) === 1;
  }

  async get(id: string): Promise<MessageRow | undefined> {
    const r = await this.db.one<MessageRaw>(MESSAGE_SQL.get.postgres, [id]);
    return r && toMessageRow(r);
  }

  async findByClientId(sessionId: string, clientId: string): Promise<MessageRow | undefined> {
    const r = await this.db.one<MessageRaw>(MESSAGE_SQL.findByClientId.postgres, [sessionId, clientId]);
    return r && toMessageRow(r);
  }

  async listForSession(sessionId: string): Promise<MessageRow[]> {
    return (await this.db.rows<MessageRaw>(MESSAGE_SQL.listForSession.postgres, [sessionId])).map(toMessageRow);
  }

  async count(sessionId?: string): Promise<number> {
    const r =
      sessionId === undefined
        ? await this.db.one<{ n: number }>(MESSAGE_SQL.countAll.postgres)
        : await this.db.one<{ n: number }>(MESSAGE_SQL.countInSession.postgres, [sessionId]);
    return r!.n;
  }
}
