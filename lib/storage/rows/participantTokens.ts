/** The `participant_tokens` row as both engines return it (the same column types on each) and its mapping. */
import type { TokenSession } from '../contract/participants';

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

/** A token's session with its study and condition (ParticipantTokensRepo.findSession). */
export interface TokenSessionRaw {
  session_id: string;
  study_id: string;
  condition_id: string;
}

export const toTokenSession = (r: TokenSessionRaw | undefined): TokenSession | undefined =>
  r && { sessionId: r.session_id, studyId: r.study_id, conditionId: r.condition_id };
