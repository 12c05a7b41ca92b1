/**
 * Who a session belongs to: platform identities, participant tokens and withdrawals (tombstones). Part of the
 * storage contract: lib/storage/contract/store.ts re-exports everything here, and code imports it from there.
 */
import type { SessionRow } from './sessions';

/** Platform identity of a session: the only place platform ids and raw URL parameters are stored. */
export interface IdentityRow {
  sessionId: string;
  studyId: string;
  platform: string;
  platformUserId: string | null;
  platformStudyId: string | null;
  platformSessionId: string | null;
  urlParams: Record<string, string>;
  createdAt: number;
}

export interface IdentitiesRepo {
  /** `resumeCodeHash`: the session's resume code hash, stored with the row (what setResumeCodeHash would set). */
  insert(row: IdentityRow, resumeCodeHash?: string): Promise<void>;
  /** The session a platform user already has in this study, if any. */
  findSessionId(studyId: string, platform: string, platformUserId: string): Promise<string | undefined>;
  get(sessionId: string): Promise<IdentityRow | undefined>;
  /** Number of identity rows with this platform user id (any study). */
  countByPlatformUserId(platformUserId: string): Promise<number>;
  /** Every session of a platform user in the study, oldest first (one per per-visit id). */
  listForPlatformUser(studyId: string, platform: string, platformUserId: string): Promise<IdentityRow[]>;
  /**
   * Number of the study's sessions opened with a platform user id but no per-visit id (a link without
   * Prolific SESSION_ID / MTurk assignmentId, or a participant_label link): the dashboard's warning.
   */
  countWithoutVisitId(studyId: string): Promise<number>;
  /** Stores the keyed hash of the session's resume code (services/resumeCode.ts), replacing an earlier one. */
  setResumeCodeHash(sessionId: string, hash: string): Promise<void>;
  /** The stored resume code hash of the session (null when none was issued, undefined for no identity row). */
  resumeCodeHash(sessionId: string): Promise<string | null | undefined>;
}

/** Participant tokens, by SHA-256 hash (the token itself is never stored). */
export interface ParticipantTokensRepo {
  insert(tokenHash: string, sessionId: string, now: number): Promise<void>;
  /** The row of the session a token is bound to (one read: a socket's handshake and its time limit need no other). */
  findSession(tokenHash: string): Promise<SessionRow | undefined>;
  /** Revokes every token of the session (a new one is about to be issued, or the session is withdrawn). Returns how many. */
  deleteForSession(sessionId: string): Promise<number>;
  /** Every stored row as {tokenHash, sessionId, createdAt} (security tests check no raw token is stored). */
  listAll(): Promise<Array<{ tokenHash: string; sessionId: string; createdAt: number }>>;
  count(): Promise<number>;
}

export interface WithdrawalRow {
  studyId: string;
  tombstone: string;
  withdrawnAt: number;
  deletedSessions: number;
  actor: string;
}

/** Withdrawal of a participant: their sessions (every science table cascades from sessions) and a tombstone. */
export interface WithdrawalsRepo {
  /** Session ids of the platform user in the study (the identity table is the only place that links them). */
  findSessionIds(studyId: string, platformUserId: string): Promise<string[]>;
  /** Upload storage paths (relative to the data dir) of these sessions, to delete the files after the rows. */
  uploadPaths(sessionIds: readonly string[]): Promise<string[]>;
  /**
   * Deletes the sessions and (by cascade) all their rows in every table. A session in a group is first taken out
   * of it: its messages, edits and group events go, its seat becomes `withdrawn`, and the group's record keeps a
   * `withdrawn` event with counts only (lib/storage/groupWithdrawal.ts). Call inside a transaction; `now` is the
   * withdrawal's time (that event's).
   */
  deleteSessions(sessionIds: readonly string[], now?: number): Promise<number>;
  /** Records the tombstone; a second withdrawal of the same person adds to the deleted count. */
  recordTombstone(w: WithdrawalRow): Promise<void>;
  tombstones(studyId: string): Promise<Set<string>>;
  isWithdrawn(studyId: string, tombstone: string): Promise<boolean>;
  count(studyId: string): Promise<number>;
}
