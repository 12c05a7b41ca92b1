import { cachedStatement, type SqliteDatabase } from '../database';
import type { ParticipantTokensRepo } from '../../contract/store';
import { toParticipantToken, type ParticipantToken, type ParticipantTokenRaw } from '../../rows/participantTokens';
import type { Sync } from '../sync';

/** Participant tokens, by SHA-256 hash (the token itself is never stored). */
export class ParticipantTokensRepository implements Sync<ParticipantTokensRepo> {
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

  deleteForSession(sessionId: string): number {
    return cachedStatement(this.db, 'DELETE FROM participant_tokens WHERE session_id = ?').run(sessionId).changes;
  }

  listAll(): ParticipantToken[] {
    const rows = cachedStatement(this.db, 'SELECT token_hash, session_id, created_at FROM participant_tokens ORDER BY created_at, token_hash').all() as ParticipantTokenRaw[];
    return rows.map(toParticipantToken);
  }

  count(): number {
    return (cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM participant_tokens').get() as { n: number }).n;
  }
}
