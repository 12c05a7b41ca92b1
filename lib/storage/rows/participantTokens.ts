/** The `participant_tokens` row as both engines return it (the same column types on each) and its mapping. */

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
