/** The row shapes of the group tables (migration 028) as both engines return them, and their contract rows. */
import type {
  GroupDocUpdateRow,
  GroupEventRow,
  GroupMemberRow,
  GroupMessageRow,
  GroupRow,
  LobbyEntryRow,
} from '../contract/groups';

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
