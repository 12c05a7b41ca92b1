/**
 * Store.acknowledgeUserMessage on SQLite: the checks and writes of the contract (../userMessageAck.ts) run
 * synchronously in one BEGIN IMMEDIATE transaction, which holds the database's write lock from the first
 * read, so nothing can change the session between its checks and the writes.
 */
import { cachedStatement, type SqliteDatabase } from './database';
import { userMessageRow, type AckRefusal, type UserMessageAck, type UserMessageAckResult } from '../contract/userMessageAck';
import type { EventsRepo, MessagesRepo, ReplyLeasesRepo, SessionRow, SessionsRepo } from '../contract/store';
import { MESSAGE_SQL } from '../sql/messages';
import type { Sync } from './sync';
import { sessionRefusal } from './sessionRefusal';

interface Repositories {
  sessions: Sync<SessionsRepo>;
  messages: Sync<MessagesRepo>;
  events: Sync<EventsRepo>;
  replyLeases: Sync<ReplyLeasesRepo>;
}

/** The first check the session fails, in the order of the PostgreSQL function (migration 023). */
function refusalOf(db: SqliteDatabase, s: SessionRow, a: UserMessageAck, storedBytes: number): AckRefusal | null {
  const refusal = sessionRefusal(s, a.now, a.timeLimitMs, a.step);
  if (refusal) return refusal;
  const sent = (cachedStatement(db, MESSAGE_SQL.countUserMessages.sqlite).get(a.sessionId) as { n: number }).n;
  if (sent >= a.maxUserMessages) return 'limit_reached';
  if (a.addedBytes > 0 && storedBytes + a.addedBytes > a.budgetBytes) return 'storage_full';
  return null;
}

/** Call inside a transaction that holds the write lock (see createSqliteStore). */
export function acknowledgeUserMessageSync(db: SqliteDatabase, repos: Repositories, a: UserMessageAck): UserMessageAckResult {
  const session = repos.sessions.get(a.sessionId);
  if (!session) return { outcome: 'not_found' };
  const existing = repos.messages.findByClientId(a.sessionId, a.clientId);
  if (existing) return { outcome: 'duplicate', message: existing, session };
  const storedBytes = repos.sessions.storageBytes(a.sessionId);
  const reason = refusalOf(db, session, a, storedBytes);
  if (reason) return { outcome: 'refused', reason, session, storedBytes };
  // Nothing is written yet, so a session whose reply is still active needs no rollback.
  const leased = repos.replyLeases.acquire({ sessionId: a.sessionId, replyId: a.lease.replyId, replyTo: a.messageId, startedAt: a.now, owner: a.lease.owner });
  if (!leased) return { outcome: 'refused', reason: 'busy', session, storedBytes };

  const seq = repos.events.append(a.sessionId, a.messageEvent.type, a.messageEvent.payload, a.now, a.clientTs);
  const message = userMessageRow({ id: a.messageId, sessionId: a.sessionId, eventSeq: seq, text: a.text, clientId: a.clientId, tokens: a.tokens, createdAt: a.now });
  // Under the write lock the resend check above is final; the unique constraint is the guard all the same.
  if (!repos.messages.insertIfNewClientId(message)) throw new Error(`message id "${a.clientId}" was stored while its session was locked`);
  repos.events.append(a.sessionId, a.followingEvent.type, a.followingEvent.payload, a.now, null);
  return { outcome: 'stored', message, session };
}
