import type { ParticipantTokensRepo, TokenSession } from '../../contract/store';
import { toParticipantToken, toTokenSession, type ParticipantToken, type ParticipantTokenRaw, type TokenSessionRaw } from '../../rows/participantTokens';
import { TOKEN_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** Participant tokens, by SHA-256 hash (the token itself is never stored). */
export class ParticipantTokensRepository extends SqliteRepository implements Sync<ParticipantTokensRepo> {
  insert(tokenHash: string, sessionId: string, now: number): void {
    this.q.run(TOKEN_SQL.insert, tokenHash, sessionId, now);
  }

  findSession(tokenHash: string): TokenSession | undefined {
    return toTokenSession(this.q.one<TokenSessionRaw>(TOKEN_SQL.findSession, tokenHash));
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
