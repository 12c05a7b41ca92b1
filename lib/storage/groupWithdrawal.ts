/**
 * What withdrawing one member does to a group they were in, planned once for both engines (the withdrawals
 * repositories read the inputs, run the statements in the withdrawal's transaction, then delete the session):
 *
 * - their room messages, their group events and their document edits are deleted; the edits are replaced by one
 *   content-free update so the document still loads for the others (groupDocRedaction.ts);
 * - the group's judgement (group_judgements, group_judge_quality) is deleted when they left edits or messages: it
 *   judged text that held their words; judging the group again scores the rebuilt document;
 * - their seat stays, with status `withdrawn` and no session;
 * - the group's record gains a `withdrawn` event without a session and with counts only: the seat number and how
 *   many messages, edits, characters and events went. The room's group_seq keeps the gaps the messages leave
 *   (the codebook says so); the other members' rows are not touched.
 */
import type { GroupDocUpdateRow, GroupMemberRow, GroupRow } from './contract/groups';
import type { EngineSql } from './sql/engineSql';
import { GROUP_DOC_SQL, GROUP_EVENT_SQL, GROUP_WITHDRAWAL_SQL } from './sql/groups';
import { redactMemberEdits } from './groupDocRedaction';
import { appendEventParams, insertDocUpdateParams } from './rows/groups';

export interface GroupWithdrawalInput {
  group: GroupRow;
  /** Their seat, when they still held it (a seat an agent took over has no session any more). */
  member: GroupMemberRow | undefined;
  updates: readonly GroupDocUpdateRow[];
  messages: number;
  events: number;
}

export interface Statement {
  q: EngineSql;
  params: readonly unknown[];
}

/** The statements that withdraw `sessionId` from one group, in order. */
export function planGroupWithdrawal(sessionId: string, input: GroupWithdrawalInput, now: number): Statement[] {
  const { group, member } = input;
  const doc = redactMemberEdits(input.updates, sessionId);
  const out: Statement[] = [];
  for (const seq of doc.removedSeqs) out.push({ q: GROUP_WITHDRAWAL_SQL.deleteDocUpdate, params: [group.id, seq] });
  if (doc.placeholder) {
    const p = doc.placeholder;
    out.push({ q: GROUP_DOC_SQL.insert, params: insertDocUpdateParams({ groupId: group.id, sessionId: null, fieldId: p.fieldId, update: p.update, createdAt: now }, p.seq) });
  }
  if (doc.removedSeqs.length > 0 || input.messages > 0) {
    // The group's stored judgement read their words (the document, and the room when the prompt has the dialogue).
    out.push({ q: GROUP_WITHDRAWAL_SQL.deleteGroupJudgements, params: [group.id] });
    out.push({ q: GROUP_WITHDRAWAL_SQL.deleteGroupQuality, params: [group.id] });
  }
  out.push({ q: GROUP_WITHDRAWAL_SQL.deleteMessages, params: [group.id, sessionId] });
  out.push({ q: GROUP_WITHDRAWAL_SQL.deleteGroupEvents, params: [group.id, sessionId] });
  out.push({ q: GROUP_WITHDRAWAL_SQL.markWithdrawn, params: [now, sessionId] });
  out.push({
    q: GROUP_EVENT_SQL.append,
    params: appendEventParams({
      studyId: group.studyId,
      groupId: group.id,
      sessionId: null,
      type: 'withdrawn',
      serverTs: now,
      payload: {
        seat: member?.seat ?? null,
        messages_removed: input.messages,
        edits_removed: doc.removedSeqs.length,
        chars_removed: doc.removedChars,
        events_removed: input.events,
      },
    }),
  });
  return out;
}
