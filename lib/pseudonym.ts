import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Keyed pseudonyms (HMAC-SHA256) for session ids in exports and for withdrawal tombstones.
 *
 * The key is 32 random bytes kept in DATA_DIR/secrets/pseudonym.key, created on first use with mode 0600.
 * It never enters an export, so a dataset cannot be joined back to the server's session ids or
 * platform ids without the server. Different purposes are domain-separated so a session pseudonym
 * can never equal a tombstone of a platform id.
 */

export const PSEUDONYM_KEY_FILE = join('secrets', 'pseudonym.key');

export function pseudonymKeyPath(dataDir: string): string {
  return join(dataDir, PSEUDONYM_KEY_FILE);
}

export function loadOrCreatePseudonymKey(dataDir: string): Buffer {
  const path = pseudonymKeyPath(dataDir);
  if (existsSync(path)) {
    const hex = readFileSync(path, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${path}: expected 64 hex characters (a 32-byte key); refusing to guess`);
    return Buffer.from(hex, 'hex');
  }
  mkdirSync(join(dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // 'wx' fails if another process created it meanwhile; then read theirs so both agree.
  try {
    writeFileSync(path, key.toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
    chmodSync(path, 0o600);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreatePseudonymKey(dataDir);
    throw error;
  }
}

function hmacHex(key: Buffer, purpose: string, value: string): string {
  return createHmac('sha256', key).update(`${purpose}\u0000${value}`).digest('hex');
}

/** The session id written to every science file: "p" + 20 hex chars (80 bits; collisions negligible below 10^9 sessions). */
export function sessionPseudonym(key: Buffer, sessionId: string): string {
  return `p${hmacHex(key, 'session', sessionId).slice(0, 20)}`;
}

/** Tombstone for a withdrawn participant: lets later exports recognise them without storing the platform id. */
export function participantTombstone(key: Buffer, studyId: string, platformId: string): string {
  return hmacHex(key, 'withdrawn-participant', `${studyId}\u0000${platformId.trim()}`);
}
