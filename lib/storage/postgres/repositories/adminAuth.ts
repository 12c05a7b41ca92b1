import type { AdminAuthRepo, AdminCredential, AdminSessionRow } from '../../contract/store';
import { adminSessionValues, toAdminCredential, toAdminSession, type AdminCredentialRaw, type AdminSessionRaw } from '../../rows/adminAuth';
import type { Runner } from '../connection';

/** Researcher password hash and login sessions (migration 020). */
export class PgAdminAuth implements AdminAuthRepo {
  constructor(private readonly db: Runner) {}

  async getCredential(): Promise<AdminCredential | undefined> {
    const r = await this.db.one<AdminCredentialRaw>('SELECT * FROM admin_credentials WHERE id = 1');
    return r && toAdminCredential(r);
  }

  async setCredential(passwordHash: string, source: 'env' | 'generated', now: number): Promise<void> {
    await this.db.run(
      `INSERT INTO admin_credentials (id, password_hash, source, created_at, updated_at) VALUES (1, $1, $2, $3, $3)
       ON CONFLICT (id) DO UPDATE SET password_hash = excluded.password_hash, source = excluded.source, updated_at = excluded.updated_at`,
      [passwordHash, source, now],
    );
  }

  /** ON CONFLICT DO NOTHING: of several nodes starting at once, exactly one inserts. */
  async insertCredentialIfAbsent(passwordHash: string, source: 'env' | 'generated', now: number): Promise<boolean> {
    const n = await this.db.run(
      'INSERT INTO admin_credentials (id, password_hash, source, created_at, updated_at) VALUES (1, $1, $2, $3, $3) ON CONFLICT (id) DO NOTHING',
      [passwordHash, source, now],
    );
    return n === 1;
  }

  async insertSession(s: AdminSessionRow): Promise<void> {
    await this.db.run(
      'INSERT INTO admin_sessions (token_hash, csrf_token, actor, created_at, expires_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6)',
      adminSessionValues(s),
    );
  }

  async findLiveSession(tokenHash: string, now: number): Promise<AdminSessionRow | undefined> {
    const r = await this.db.one<AdminSessionRaw>('SELECT * FROM admin_sessions WHERE token_hash = $1 AND expires_at > $2', [tokenHash, now]);
    return r && toAdminSession(r);
  }

  async touchSession(tokenHash: string, now: number): Promise<void> {
    await this.db.run('UPDATE admin_sessions SET last_seen_at = $1 WHERE token_hash = $2', [now, tokenHash]);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.run('DELETE FROM admin_sessions WHERE token_hash = $1', [tokenHash]);
  }

  async deleteAllSessions(): Promise<void> {
    await this.db.run('DELETE FROM admin_sessions');
  }

  deleteExpired(now: number): Promise<number> {
    return this.db.run('DELETE FROM admin_sessions WHERE expires_at <= $1', [now]);
  }
}
