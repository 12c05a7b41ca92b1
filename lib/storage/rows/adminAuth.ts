/** The `admin_credentials` and `admin_sessions` rows (migration 020) as both engines return them (the same column types on each), and their mappings. */
import type { AdminCredential, AdminSessionRow } from '../contract/store';

export interface AdminCredentialRaw {
  password_hash: string;
  source: 'env' | 'generated';
  created_at: number;
  updated_at: number;
}

export const toAdminCredential = (r: AdminCredentialRaw): AdminCredential => ({
  passwordHash: r.password_hash,
  source: r.source,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface AdminSessionRaw {
  token_hash: string;
  csrf_token: string;
  actor: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
}

export const toAdminSession = (r: AdminSessionRaw): AdminSessionRow => ({
  tokenHash: r.token_hash,
  csrfToken: r.csrf_token,
  actor: r.actor,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastSeenAt: r.last_seen_at,
});

/** Insert values in the column order token_hash, csrf_token, actor, created_at, expires_at, last_seen_at. */
export const adminSessionValues = (s: AdminSessionRow) => [s.tokenHash, s.csrfToken, s.actor, s.createdAt, s.expiresAt, s.lastSeenAt] as const;
