import { cachedStatement, type SqliteDatabase } from '../database';

/** Participant tokens, by SHA-256 hash (the token itself is never stored). */
export class ParticipantTokensRepository {
  constructor(private readonly db: SqliteDatabase) {}

  insert(tokenHash: string, sessionId: string, now: number): void {
    cachedStatement(this.db, 'INSERT INTO participant_tokens (token_hash, session_id, created_at) VALUES (?, ?, ?)').run(tokenHash, sessionId, now);
  }

  findSessionId(tokenHash: string): string | undefined {
    const r = cachedStatement(this.db, 'SELECT session_id FROM participant_tokens WHERE token_hash = ?').get(tokenHash) as
      | { session_id: string }
      | undefined;
    return r?.session_id;
  }
}
