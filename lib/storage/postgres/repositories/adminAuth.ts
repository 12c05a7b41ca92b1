import type { AdminAuthRepo, AdminCredential, AdminSessionRow } from '../../contract/store';
import { adminSessionValues, toAdminCredential, toAdminSession, type AdminCredentialRaw, type AdminSessionRaw } from '../../rows/adminAuth';
import { ADMIN_AUTH_SQL } from '../../sql/admin';
import type { Runner } from '../connection';

/** Researcher password hash and login sessions (migration 020). */
export class PgAdminAuth implements AdminAuthRepo {
  constructor(private readonly db: Runner) {}

  async getCredential(): Promise<AdminCredential | undefined> {
    const r = await this.db.one<AdminCredentialRaw>(ADMIN_AUTH_SQL.getCredential.postgres);
    return r && toAdminCredential(r);
  }

  async setCredential(passwordHash: string, source: 'env' | 'generated', now: number): Promise<void> {
    await this.db.run(ADMIN_AUTH_SQL.setCredential.postgres, [passwordHash, source, now, now]);
  }

  /** ON CONFLICT DO NOTHING: of several nodes starting at once, exactly one inserts. */
  async insertCredentialIfAbsent(passwordHash: string, source: 'env' | 'generated', now: number): Promise<boolean> {
    return (await this.db.run(ADMIN_AUTH_SQL.insertCredentialIfAbsent.postgres, [passwordHash, source, now, now])) === 1;
  }

  async insertSession(s: AdminSessionRow): Promise<void> {
    await this.db.run(ADMIN_AUTH_SQL.insertSession.postgres, adminSessionValues(s));
  }

  async findLiveSession(tokenHash: string, now: number): Promise<AdminSessionRow | undefined> {
    const r = await this.db.one<AdminSessionRaw>(ADMIN_AUTH_SQL.findLiveSession.postgres, [tokenHash, now]);
    return r && toAdminSession(r);
  }

  async touchSession(tokenHash: string, now: number): Promise<void> {
    await this.db.run(ADMIN_AUTH_SQL.touchSession.postgres, [now, tokenHash]);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.run(ADMIN_AUTH_SQL.deleteSession.postgres, [tokenHash]);
  }

  async deleteAllSessions(): Promise<void> {
    await this.db.run(ADMIN_AUTH_SQL.deleteAllSessions.postgres);
  }

  deleteExpired(now: number): Promise<number> {
    return this.db.run(ADMIN_AUTH_SQL.deleteExpired.postgres, [now]);
  }
}
