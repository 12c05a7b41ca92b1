import crypto from 'node:crypto';
import type { Store } from '../db/store';

/** A new participant token: 32 random bytes, base64url. Only its SHA-256 hash is stored. */
export function newParticipantToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Issues a token bound to the session (call inside a transaction when creating the session). */
export function issueToken(store: Store, sessionId: string, now: number): string {
  const token = newParticipantToken();
  store.tokens.insert(hashToken(token), sessionId, now);
  return token;
}

/** The session a token is bound to, or undefined for an unknown token. */
export function sessionForToken(store: Store, token: string): string | undefined {
  if (typeof token !== 'string' || token.length < 20 || token.length > 200) return undefined;
  return store.tokens.findSessionId(hashToken(token));
}
