import crypto from 'node:crypto';
import type { SessionRow, Store, StoreRepositories } from '../../lib/storage';

/** A new participant token: 32 random bytes, base64url. Only its SHA-256 hash is stored. */
export function newParticipantToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Issues a token bound to the session (call inside a transaction when creating the session). */
export async function issueToken(tx: StoreRepositories, sessionId: string, now: number): Promise<string> {
  const token = newParticipantToken();
  await tx.tokens.insert(hashToken(token), sessionId, now);
  return token;
}

/** The row of the session a token is bound to, or undefined for an unknown token. */
export async function sessionForToken(store: Store, token: string): Promise<SessionRow | undefined> {
  if (typeof token !== 'string' || token.length < 20 || token.length > 200) return undefined;
  return store.tokens.findSession(hashToken(token));
}
