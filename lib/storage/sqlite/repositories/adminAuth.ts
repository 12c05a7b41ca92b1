import type { AdminAuthRepo, AdminCredential, AdminSessionRow } from '../../contract/store';
import { adminSessionValues, toAdminCredential, toAdminSession, type AdminCredentialRaw, type AdminSessionRaw } from '../../rows/adminAuth';
import { ADMIN_AUTH_SQL } from '../../sql/admin';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** Researcher password hash and login sessions (migration 020). */
export class AdminAuthRepository extends SqliteRepository implements Sync<AdminAuthRepo> {
  getCredential(): AdminCredential | undefined {
    const r = this.q.one<AdminCredentialRaw>(ADMIN_AUTH_SQL.getCredential);
    return r && toAdminCredential(r);
  }

  setCredential(passwordHash: string, source: 'env' | 'generated', now: number): void {
    this.q.run(ADMIN_AUTH_SQL.setCredential, passwordHash, source, now, now);
  }

  /** Inserts the credential only if none exists; returns whether it was inserted (first start wins). */
  insertCredentialIfAbsent(passwordHash: string, source: 'env' | 'generated', now: number): boolean {
    return this.q.run(ADMIN_AUTH_SQL.insertCredentialIfAbsent, passwordHash, source, now, now) === 1;
  }

  insertSession(s: AdminSessionRow): void {
    this.q.run(ADMIN_AUTH_SQL.insertSession, ...adminSessionValues(s));
  }

  /** The session for a token hash if it has not expired at `now`. */
  findLiveSession(tokenHash: string, now: number): AdminSessionRow | undefined {
    const r = this.q.one<AdminSessionRaw>(ADMIN_AUTH_SQL.findLiveSession, tokenHash, now);
    return r && toAdminSession(r);
  }

  touchSession(tokenHash: string, now: number): void {
    this.q.run(ADMIN_AUTH_SQL.touchSession, now, tokenHash);
  }

  deleteSession(tokenHash: string): void {
    this.q.run(ADMIN_AUTH_SQL.deleteSession, tokenHash);
  }

  /** Logs everyone out (after a password change). */
  deleteAllSessions(): void {
    this.q.run(ADMIN_AUTH_SQL.deleteAllSessions);
  }

  deleteExpired(now: number): number {
    return this.q.run(ADMIN_AUTH_SQL.deleteExpired, now);
  }
}
