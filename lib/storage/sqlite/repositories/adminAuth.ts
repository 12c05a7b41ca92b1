import type { SqliteDatabase } from '../database';
import type { AdminAuthRepo, AdminCredential, AdminSessionRow } from '../../contract/store';
import { adminSessionValues, toAdminCredential, toAdminSession, type AdminCredentialRaw, type AdminSessionRaw } from '../../rows/adminAuth';
import type { Sync } from '../sync';
/** Researcher password hash and login sessions (migration 020). */
export class AdminAuthRepository implements Sync<AdminAuthRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  getCredential(): AdminCredential | undefined {
    const r = this.db.prepare('SELECT * FROM admin_credentials WHERE id = 1').get() as AdminCredentialRaw | undefined;
    return r && toAdminCredential(r);
  }

  setCredential(passwordHash: string, source: 'env' | 'generated', now: number): void {
    this.db
      .prepare(
        `INSERT INTO admin_credentials (id, password_hash, source, created_at, updated_at) VALUES (1, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET password_hash = excluded.password_hash, source = excluded.source, updated_at = excluded.updated_at`,
      )
      .run(passwordHash, source, now, now);
  }

  /** Inserts the credential only if none exists; returns whether it was inserted (first start wins). */
  insertCredentialIfAbsent(passwordHash: string, source: 'env' | 'generated', now: number): boolean {
    const r = this.db
      .prepare('INSERT OR IGNORE INTO admin_credentials (id, password_hash, source, created_at, updated_at) VALUES (1, ?, ?, ?, ?)')
      .run(passwordHash, source, now, now);
    return r.changes === 1;
  }

  insertSession(s: AdminSessionRow): void {
    this.db
      .prepare('INSERT INTO admin_sessions (token_hash, csrf_token, actor, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(...adminSessionValues(s));
  }

  /** The session for a token hash if it has not expired at `now`. */
  findLiveSession(tokenHash: string, now: number): AdminSessionRow | undefined {
    const r = this.db.prepare('SELECT * FROM admin_sessions WHERE token_hash = ? AND expires_at > ?').get(tokenHash, now) as AdminSessionRaw | undefined;
    return r && toAdminSession(r);
  }

  touchSession(tokenHash: string, now: number): void {
    this.db.prepare('UPDATE admin_sessions SET last_seen_at = ? WHERE token_hash = ?').run(now, tokenHash);
  }

  deleteSession(tokenHash: string): void {
    this.db.prepare('DELETE FROM admin_sessions WHERE token_hash = ?').run(tokenHash);
  }

  /** Logs everyone out (after a password change). */
  deleteAllSessions(): void {
    this.db.prepare('DELETE FROM admin_sessions').run();
  }

  deleteExpired(now: number): number {
    return this.db.prepare('DELETE FROM admin_sessions WHERE expires_at <= ?').run(now).changes;
  }
}
