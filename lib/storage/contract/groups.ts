/**
 * Store contract for group sessions (migration 028; server/groups/). Matching is decided inside one transaction
 * that first takes `lockLobby(key)`: PostgreSQL a transaction-scoped advisory lock (every node that matches the
 * same lobby waits for it), SQLite nothing (one writer by construction). The schema backs the rule twice over:
 * group_members' primary key (group, seat) fills a seat once and its unique session_id puts one person in one
 * group at most, so a matching bug fails its transaction rather than storing a double seat.
 */

export type GroupStatus = 'active' | 'ended';
export type LobbyOutcome = 'grouped' | 'released' | 'left';
export type GroupMemberKind = 'participant' | 'agent';
export type GroupMemberStatus = 'present' | 'away' | 'dropped' | 'replaced' | 'left' | 'withdrawn';
export type GroupSenderKind = 'participant' | 'agent' | 'researcher' | 'system';

export interface GroupRow {
  id: string;
  studyId: string;
  conditionId: string;
  taskId: string;
  status: GroupStatus;
  /** Why it ended: submitted, end_group (a dropout), time_limit, … ; null while active. */
  endReason: string | null;
  sizeAtStart: number;
  /** The agents' display names at formation. */
  agents: string[];
  formedAt: number;
  endedAt: number | null;
}

export interface LobbyEntryRow {
  sessionId: string;
  studyId: string;
  conditionId: string;
  taskId: string;
  /** The person's value of the quota key (form_by quota), null for arrival matching. */
  quotaValue: string | null;
  joinedAt: number;
  /**
   * 1, 2, … per lobby (study, condition, task) in the order the joins committed (migration 029): the order matching
   * seats people in, exact also when two join in the same millisecond.
   */
  arrivalSeq: number;
  /** When the lobby's timeout falls due for this person (server clock). */
  deadlineAt: number;
  /** null while waiting. */
  outcome: LobbyOutcome | null;
  outcomeAt: number | null;
  groupId: string | null;
}

export type NewLobbyEntry = Omit<LobbyEntryRow, 'outcome' | 'outcomeAt' | 'groupId' | 'arrivalSeq'>;

export interface GroupMemberRow {
  groupId: string;
  seat: number;
  kind: GroupMemberKind;
  /** The person's session; null for an agent (and for a withdrawn person). */
  sessionId: string | null;
  displayName: string;
  status: GroupMemberStatus;
  joinedAt: number;
  awaySince: number | null;
  leftAt: number | null;
}

export interface GroupEventRow {
  id: number;
  studyId: string;
  groupId: string | null;
  sessionId: string | null;
  type: string;
  serverTs: number;
  payload: Record<string, unknown>;
}

export interface GroupMessageRow {
  id: string;
  groupId: string;
  /** 1, 2, … per group, without gaps as appended; a member's withdrawal leaves the gaps of their messages. */
  groupSeq: number;
  senderKind: GroupSenderKind;
  sessionId: string | null;
  senderName: string;
  clientId: string | null;
  content: string;
  tokens: number;
  createdAt: number;
}

export interface GroupDocUpdateRow {
  groupId: string;
  /**
   * 1, 2, … per group, without gaps as appended. A member's withdrawal replaces their updates by one content-free
   * update at the seq of their first (session null) and leaves the others' seqs as gaps.
   */
  seq: number;
  sessionId: string | null;
  fieldId: string;
  /** One Yjs update, base64. */
  update: string;
  createdAt: number;
}

export interface GroupsRepo {
  /** Inside a transaction: waits until no other transaction holds the lobby `key`, then holds it until COMMIT. */
  lockLobby(key: string): Promise<void>;
  /**
   * Enters the lobby with the lobby's next arrival number (call it after lockLobby, in the same transaction); a session
   * already in it keeps its first entry (several tabs count once). Returns the entry.
   */
  joinLobby(entry: NewLobbyEntry): Promise<{ entry: LobbyEntryRow; created: boolean }>;
  getLobbyEntry(sessionId: string): Promise<LobbyEntryRow | undefined>;
  /** The people still waiting for one condition and task, in arrival order (arrivalSeq). */
  listWaiting(studyId: string, conditionId: string, taskId: string): Promise<LobbyEntryRow[]>;
  /** Waiting entries whose deadline is at or before `now`, oldest first (the lobby sweep). */
  listDueLobby(now: number): Promise<LobbyEntryRow[]>;
  /** Settles waiting entries (those already settled are left as they are); returns how many changed. */
  settleLobby(sessionIds: readonly string[], outcome: LobbyOutcome, at: number, groupId: string | null): Promise<number>;
  listLobbyEntries(studyId: string): Promise<LobbyEntryRow[]>;

  createGroup(group: Omit<GroupRow, 'status' | 'endReason' | 'endedAt'>): Promise<void>;
  getGroup(groupId: string): Promise<GroupRow | undefined>;
  listGroups(studyId: string): Promise<GroupRow[]>;
  listActiveGroups(): Promise<GroupRow[]>;
  /** Ends an active group; false when it had ended already. */
  endGroup(groupId: string, reason: string, at: number): Promise<boolean>;

  addMember(member: Omit<GroupMemberRow, 'awaySince' | 'leftAt'>): Promise<void>;
  listMembers(groupId: string): Promise<GroupMemberRow[]>;
  /** The seat a session holds, if it is in a group. */
  memberBySession(sessionId: string): Promise<GroupMemberRow | undefined>;
  /** Sets a seat's status (awaySince set with 'away', cleared otherwise; leftAt set with dropped/left/replaced/withdrawn). */
  setMemberStatus(groupId: string, seat: number, status: GroupMemberStatus, at: number): Promise<void>;
  /** An agent takes over a dropped person's seat: the seat keeps its number, loses the session, gets the agent's name. */
  replaceMemberWithAgent(groupId: string, seat: number, displayName: string, at: number): Promise<void>;

  appendEvent(event: Omit<GroupEventRow, 'id'>): Promise<number>;
  listEvents(studyId: string): Promise<GroupEventRow[]>;
  listGroupEvents(groupId: string): Promise<GroupEventRow[]>;

  /**
   * Appends a message with the group's next group_seq. A person's resend (same session and client_id) is stored
   * once: the second call returns the first row with inserted false.
   */
  appendMessage(message: Omit<GroupMessageRow, 'groupSeq'>): Promise<{ message: GroupMessageRow; inserted: boolean }>;
  /** The message this session stored under `clientId`, if any (a resend answers with it, budget or not). */
  findMessageByClientId(sessionId: string, clientId: string): Promise<GroupMessageRow | undefined>;
  /** The room's messages after `afterSeq` (0 = all), in group_seq order. */
  listMessages(groupId: string, afterSeq?: number): Promise<GroupMessageRow[]>;
  /** How many messages this session has posted into its group (the per-member budget). */
  countMemberMessages(sessionId: string): Promise<number>;

  appendDocUpdate(update: Omit<GroupDocUpdateRow, 'seq'>): Promise<number>;
  listDocUpdates(groupId: string): Promise<GroupDocUpdateRow[]>;
  /** How many document updates this session has made (the per-member edit budget). */
  countMemberDocUpdates(sessionId: string): Promise<number>;
}
