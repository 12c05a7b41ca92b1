/**
 * Store.storeAssistantReply on SQLite: the writes of the contract (../assistantReplyWrite.ts) run synchronously in
 * one BEGIN IMMEDIATE transaction (the caller's), so no other writer comes between the check and the writes.
 */
import type { AssistantReplyWrite, AssistantReplyWriteResult } from '../contract/assistantReplyWrite';
import type { EventsRepo, MessagesRepo, ReplyLeasesRepo, ReplyProgressRepo } from '../contract/store';
import type { Sync } from './sync';

interface Repositories {
  messages: Sync<MessagesRepo>;
  events: Sync<EventsRepo>;
  replyLeases: Sync<ReplyLeasesRepo>;
  replyProgress: Sync<ReplyProgressRepo>;
}

export function storeAssistantReplySync(r: Repositories, w: AssistantReplyWrite): AssistantReplyWriteResult {
  r.replyLeases.release(w.replyId);
  const already = r.messages.get(w.replyId);
  if (already) return { stored: false, message: already };
  const eventSeq = r.events.append(w.sessionId, w.event.type, w.event.payload, w.now, null);
  const message = { ...w.message, eventSeq };
  r.messages.insert(message);
  r.replyProgress.delete(w.replyId);
  return { stored: true, message };
}
