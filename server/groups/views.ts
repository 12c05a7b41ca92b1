/** What a session sees of its group: the lobby, the release, or the room with its history and shared document. */
import type { GroupMemberView, GroupMessageView, GroupView } from '../../common/groupEvents';
import { completionRedirectUrl, lobbyReleaseCode } from '../../common/study';
import type { MonitorGroupMessage } from '../../common/groupMonitor';
import type { GroupMemberRow, GroupMessageRow, StoreRepositories } from '../../lib/storage';
import { loadSession, type SessionContext } from '../services/serviceContext';
import type { GroupContext } from './groupContext';

/**
 * A room message as the members see it. A researcher who speaks as an agent (Wizard of Oz) is shown as that agent,
 * as the assistant of a single wizard session is: only the store, the export and the researcher's monitor say
 * sender_kind researcher.
 */
export function messageView(m: GroupMessageRow, members: readonly GroupMemberRow[]): GroupMessageView {
  const asAgent = m.senderKind === 'agent' || (m.senderKind === 'researcher' && members.some((x) => x.kind === 'agent' && x.displayName === m.senderName));
  const seat = m.senderKind === 'participant' ? members.find((x) => x.sessionId !== null && x.sessionId === m.sessionId)?.seat ?? null : null;
  const agentSeat = asAgent ? members.find((x) => x.kind === 'agent' && x.displayName === m.senderName)?.seat ?? null : null;
  return {
    groupId: m.groupId,
    groupSeq: m.groupSeq,
    senderKind: asAgent ? 'agent' : m.senderKind,
    senderName: m.senderName,
    seat: seat ?? agentSeat,
    text: m.content,
    createdAt: m.createdAt,
    clientId: m.clientId,
  };
}

/** A room message as the researcher's monitor shows it: the stored sender kind (researcher included). */
export function researcherMessageView(m: GroupMessageRow): MonitorGroupMessage {
  return { groupSeq: m.groupSeq, senderKind: m.senderKind, senderName: m.senderName, text: m.content, createdAt: m.createdAt };
}

export function memberViews(g: GroupContext, groupId: string, members: readonly GroupMemberRow[]): GroupMemberView[] {
  const typing = g.typing.get(groupId);
  return members.map((m) => ({ seat: m.seat, name: m.displayName, kind: m.kind, status: m.status, typing: typing?.has(m.seat) ?? false }));
}

export async function groupViewFor(g: GroupContext, sessionId: string, db: StoreRepositories = g.ctx.store): Promise<GroupView> {
  const s = await loadSession(g.ctx, sessionId, db);
  return viewOf(g, s, db);
}

export async function viewOf(g: GroupContext, s: SessionContext, db: StoreRepositories): Promise<GroupView> {
  const config = s.condition.group;
  if (!config) return { state: 'none' };
  const sessionId = s.session.id;
  const member = await db.groups.memberBySession(sessionId);
  if (member) {
    const [group, members, messages, updates] = await Promise.all([
      db.groups.getGroup(member.groupId),
      db.groups.listMembers(member.groupId),
      db.groups.listMessages(member.groupId),
      db.groups.listDocUpdates(member.groupId),
    ]);
    const fields = new Map<string, string[]>();
    for (const u of updates) fields.set(u.fieldId, [...(fields.get(u.fieldId) ?? []), u.update]);
    return {
      state: 'grouped',
      groupId: member.groupId,
      status: group!.status,
      endReason: group!.endReason,
      seat: member.seat,
      displayName: member.displayName,
      members: memberViews(g, member.groupId, members),
      messages: messages.map((m) => messageView(m, members)),
      doc: [...fields].map(([field, list]) => ({ field, updates: list })),
    };
  }
  const entry = await db.groups.getLobbyEntry(sessionId);
  if (!entry) return { state: 'not_joined', size: config.size, timeoutSeconds: config.lobby.timeout_seconds, screening: config.screening ?? [] };
  if (entry.outcome === null) {
    const waiting = await db.groups.listWaiting(entry.studyId, entry.conditionId, entry.taskId);
    return { state: 'waiting', waiting: waiting.length, size: config.size, deadline: entry.deadlineAt, serverNow: g.ctx.now() };
  }
  if (entry.outcome === 'released') {
    const code = lobbyReleaseCode(s.study.completion);
    return { state: 'released', code, redirectUrl: completionRedirectUrl(s.study.completion, code), waitedMs: (entry.outcomeAt ?? entry.joinedAt) - entry.joinedAt };
  }
  return { state: 'left' };
}
