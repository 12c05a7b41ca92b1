/** The `participant_tokens` row as both engines return it (the same column types on each) and its mapping. */
import type { TokenSession } from '../contract/participants';
import { toSessionRow, type SessionRaw } from './sessions';

export interface ParticipantTokenRaw {
  token_hash: string;
  session_id: string;
  created_at: number;
}

export interface ParticipantToken {
  tokenHash: string;
  sessionId: string;
  createdAt: number;
}

export const toParticipantToken = (r: ParticipantTokenRaw): ParticipantToken => ({ tokenHash: r.token_hash, sessionId: r.session_id, createdAt: r.created_at });

/** A token's session row (ParticipantTokensRepo.findSession). */
export type TokenSessionRaw = SessionRaw;

export const toTokenSession = (r: TokenSessionRaw | undefined): TokenSession | undefined => {
  if (!r) return undefined;
  const session = toSessionRow(r);
  return { sessionId: session.id, studyId: session.studyId, conditionId: session.conditionId, session };
};
