import type { ParticipantTokensRepo } from '../../contract/store';
import { toParticipantToken, type ParticipantToken, type ParticipantTokenRaw } from '../../rows/participantTokens';
import type { Runner } from '../connection';

export class PgParticipantTokens implements ParticipantTokensRepo {
  constructor(private readonly db: Runner) {}

  async insert(tokenHash: string, sessionId: string, now: number): Promise<void> {
    await this.db.run('INSERT INTO participant_tokens (token_hash, session_id, created_at) VALUES ($1, $2, $3)', [tokenHash, sessionId, now]);
  }

  async findSessionId(tokenHash: string): Promise<string | undefined> {
    return (await this.db.one<{ session_id: string }>('SELECT session_id FROM participant_tokens WHERE token_hash = $1', [tokenHash]))?.session_id;
  }

  async deleteForSession(sessionId: string): Promise<number> {
    return this.db.run('DELETE FROM participant_tokens WHERE session_id = $1', [sessionId]);
  }

  async listAll(): Promise<ParticipantToken[]> {
    const rows = await this.db.rows<ParticipantTokenRaw>(
      'SELECT token_hash, session_id, created_at FROM participant_tokens ORDER BY created_at, token_hash',
    );
    return rows.map(toParticipantToken);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM participant_tokens'))!.n;
  }
}
