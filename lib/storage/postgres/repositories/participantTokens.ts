import type { ParticipantTokensRepo, SessionRow } from '../../contract/store';
import { toParticipantToken, type ParticipantToken, type ParticipantTokenRaw } from '../../rows/participantTokens';
import { toSessionRow, type SessionRaw } from '../../rows/sessions';
import { TOKEN_SQL } from '../../sql/participants';
import type { Runner } from '../connection';

export class PgParticipantTokens implements ParticipantTokensRepo {
  constructor(private readonly db: Runner) {}

  async insert(tokenHash: string, sessionId: string, now: number): Promise<void> {
    await this.db.run(TOKEN_SQL.insert.postgres, [tokenHash, sessionId, now]);
  }

  async findSession(tokenHash: string): Promise<SessionRow | undefined> {
    const r = await this.db.one<SessionRaw>(TOKEN_SQL.findSession.postgres, [tokenHash]);
    return r && toSessionRow(r);
  }

  deleteForSession(sessionId: string): Promise<number> {
    return this.db.run(TOKEN_SQL.deleteForSession.postgres, [sessionId]);
  }

  async listAll(): Promise<ParticipantToken[]> {
    return (await this.db.rows<ParticipantTokenRaw>(TOKEN_SQL.listAll.postgres)).map(toParticipantToken);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>(TOKEN_SQL.count.postgres))!.n;
  }
}
