/** The row shapes of the group tables (migration 028) as both engines return them, and their contract rows. */
import type {
  GroupDocUpdateRow,
  GroupEventRow,
  GroupMemberRow,
  GroupMessageRow,
  GroupRow,
  GroupMemberStatus,
  LobbyEntryRow,
  NewLobbyEntry,
} from '../contract/groups';

/** The seat statuses that mean the person is gone from the room (left_at is set with them). */
export const GONE_STATUSES: readonly GroupMemberStatus[] = ['dropped', 'left', 'replaced', 'withdrawn'];

/** LOBBY_SQL.join's parameters: the entry, then its lobby again (for the lobby's next arrival number). */
export const joinLobbyParams = (e: NewLobbyEntry) =>
  [e.sessionId, e.studyId, e.conditionId, e.taskId, e.quotaValue, e.joinedAt, e.deadlineAt, e.studyId, e.conditionId, e.taskId] as const;

export const createGroupParams = (g: Omit<GroupRow, 'status' | 'endReason' | 'endedAt'>) =>
  [g.id, g.studyId, g.conditionId, g.taskId, g.sizeAtStart, JSON.stringify(g.agents), g.formedAt] as const;

export const addMemberParams = (m: Omit<GroupMemberRow, 'awaySince' | 'leftAt'>) =>
  [m.groupId, m.seat, m.kind, m.sessionId, m.displayName, m.status, m.joinedAt] as const;

/** GROUP_MEMBER_SQL.setStatus's parameters. */
export const memberStatusParams = (groupId: string, seat: number, status: GroupMemberStatus, at: number) =>
  [status, status, at, GONE_STATUSES.includes(status) ? 1 : 0, at, groupId, seat] as const;

export const appendEventParams = (e: Omit<GroupEventRow, 'id'>) =>
  [e.studyId, e.groupId, e.sessionId, e.type, e.serverTs, JSON.stringify(e.payload)] as const;

export const insertMessageParams = (m: Omit<GroupMessageRow, 'groupSeq'>, seq: number) =>
  [m.id, m.groupId, seq, m.senderKind, m.sessionId, m.senderName, m.clientId, m.content, m.tokens, m.createdAt] as const;

export const insertDocUpdateParams = (u: Omit<GroupDocUpdateRow, 'seq'>, seq: number) =>
  [u.groupId, seq, u.sessionId, u.fieldId, u.update, u.createdAt] as const;

export interface RawGroup {
  id: string;
  study_id: string;
  condition_id: string;
  task_id: string;
  status: GroupRow['status'];
  end_reason: string | null;
  size_at_start: number;
  agents: string;
  formed_at: number;
  ended_at: number | null;
}
export const toGroup = (r: RawGroup): GroupRow => ({
  id: r.id,
  studyId: r.study_id,
  conditionId: r.condition_id,
  taskId: r.task_id,
  status: r.status,
  endReason: r.end_reason,
  sizeAtStart: r.size_at_start,
  agents: JSON.parse(r.agents) as string[],
  formedAt: r.formed_at,
  endedAt: r.ended_at,
});

export interface RawLobbyEntry {
  session_id: string;
  study_id: string;
  condition_id: string;
  task_id: string;
  quota_value: string | null;
  joined_at: number;
  arrival_seq: number;
  deadline_at: number;
  outcome: LobbyEntryRow['outcome'];
  outcome_at: number | null;
  group_id: string | null;
}
export const toLobbyEntry = (r: RawLobbyEntry): LobbyEntryRow => ({
  sessionId: r.session_id,
  studyId: r.study_id,
  conditionId: r.condition_id,
  taskId: r.task_id,
  quotaValue: r.quota_value,
  joinedAt: r.joined_at,
  arrivalSeq: r.arrival_seq,
  deadlineAt: r.deadline_at,
  outcome: r.outcome,
  outcomeAt: r.outcome_at,
  groupId: r.group_id,
});

export interface RawGroupMember {
  group_id: string;
  seat: number;
  kind: GroupMemberRow['kind'];
  session_id: string | null;
  display_name: string;
  status: GroupMemberRow['status'];
  joined_at: number;
  away_since: number | null;
  left_at: number | null;
}
export const toGroupMember = (r: RawGroupMember): GroupMemberRow => ({
  groupId: r.group_id,
  seat: r.seat,
  kind: r.kind,
  sessionId: r.session_id,
  displayName: r.display_name,
  status: r.status,
  joinedAt: r.joined_at,
  awaySince: r.away_since,
  leftAt: r.left_at,
});

export interface RawGroupEvent {
  id: number;
  study_id: string;
  group_id: string | null;
  session_id: string | null;
  type: string;
  server_ts: number;
  payload: string;
}
export const toGroupEvent = (r: RawGroupEvent): GroupEventRow => ({
  id: r.id,
  studyId: r.study_id,
  groupId: r.group_id,
  sessionId: r.session_id,
  type: r.type,
  serverTs: r.server_ts,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
});

export interface RawGroupMessage {
  id: string;
  group_id: string;
  group_seq: number;
  sender_kind: GroupMessageRow['senderKind'];
  session_id: string | null;
  sender_name: string;
  client_id: string | null;
  content: string;
  tokens: number;
  created_at: number;
}
export const toGroupMessage = (r: RawGroupMessage): GroupMessageRow => ({
  id: r.id,
  groupId: r.group_id,
  groupSeq: r.group_seq,
  senderKind: r.sender_kind,
  sessionId: r.session_id,
  senderName: r.sender_name,
  clientId: r.client_id,
  content: r.content,
  tokens: r.tokens,
  createdAt: r.created_at,
});

export interface RawGroupDocUpdate {
  group_id: string;
  seq: number;
  session_id: string | null;
  field_id: string;
  doc_update: string;
  created_at: number;
}
export const toGroupDocUpdate = (r: RawGroupDocUpdate): GroupDocUpdateRow => ({
  groupId: r.group_id,
  seq: r.seq,
  sessionId: r.session_id,
  fieldId: r.field_id,
  update: r.doc_update,
  createdAt: r.created_at,
});
