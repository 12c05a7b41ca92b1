import type { ParticipantTokensRepo, SessionRow } from '../../contract/store';
import { toParticipantToken, type ParticipantToken, type ParticipantTokenRaw } from '../../rows/participantTokens';
import { toSessionRow, type SessionRaw } from '../../rows/sessions';
import { TOKEN_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** Participant tokens, by SHA-256 hash (the token itself is never stored). */
export class ParticipantTokensRepository extends SqliteRepository implements Sync<ParticipantTokensRepo> {
  insert(tokenHash: string, sessionId: string, now: number): void {
    this.q.run(TOKEN_SQL.insert, tokenHash, sessionId, now);
  }

  findSession(tokenHash: string): SessionRow | undefined {
    const r = this.q.one<SessionRaw>(TOKEN_SQL.findSession, tokenHash);
    return r && toSessionRow(r);
  }

  deleteForSession(sessionId: string): number {
    return this.q.run(TOKEN_SQL.deleteForSession, sessionId);
  }

  listAll(): ParticipantToken[] {
    return this.q.rows<ParticipantTokenRaw>(TOKEN_SQL.listAll).map(toParticipantToken);
  }

  count(): number {
    return this.q.one<{ n: number }>(TOKEN_SQL.count)!.n;
  }
}
