import { createHash, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PseudonymKeyRepo } from './storage';

/**
 * Keyed pseudonyms (HMAC-SHA256) for session ids in exports and for withdrawal tombstones.
 *
 * The key is 32 random bytes kept in DATA_DIR/secrets/pseudonym.key, created on first use with mode 0600.
 * It never enters an export, so a dataset cannot be joined back to the server's session ids or
 * platform ids without the server. Different purposes are domain-separated so a session pseudonym
 * can never equal a tombstone of a platform id.
 *
 * The key's fingerprint is stored in the database at its first use (openPseudonymKey): a node or command
 * whose DATA_DIR holds another key, or none while the database has a fingerprint, stops with a message naming
 * the folder, instead of silently writing other pseudonyms (and no longer recognising resume codes).
 */

export const PSEUDONYM_KEY_FILE = join('secrets', 'pseudonym.key');

export function pseudonymKeyPath(dataDir: string): string {
  return join(dataDir, PSEUDONYM_KEY_FILE);
}

function readKey(path: string): Buffer {
  const hex = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${path}: expected 64 hex characters (a 32-byte key); refusing to guess`);
  return Buffer.from(hex, 'hex');
}

export function loadOrCreatePseudonymKey(dataDir: string): Buffer {
  const path = pseudonymKeyPath(dataDir);
  if (existsSync(path)) return readKey(path);
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

/** The key's fingerprint as the database keeps it: SHA-256 of the key, domain-separated (reveals nothing of it). */
export function pseudonymKeyFingerprint(key: Buffer): string {
  return createHash('sha256').update('tandem pseudonym key fingerprint\u0000').update(key).digest('hex');
}

/** A DATA_DIR whose pseudonym key is not the database's: the message names the folder and how to bring the key. */
export class PseudonymKeyMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PseudonymKeyMismatchError';
  }
}

const short = (fingerprint: string) => fingerprint.slice(0, 16);

/**
 * The pseudonym key of `dataDir`, checked against the fingerprint the database keeps. At the first use with a
 * database the fingerprint is recorded (a key is created first when the folder has none and the database has
 * no fingerprint either). Throws PseudonymKeyMismatchError when the folder's key is not the database's, or when
 * the folder has no key while the database already has a fingerprint: a new key would give new pseudonyms.
 */
export async function openPseudonymKey(store: { pseudonymKey: PseudonymKeyRepo }, dataDir: string, now = Date.now()): Promise<Buffer> {
  const path = resolve(pseudonymKeyPath(dataDir));
  const bring = `Copy secrets/pseudonym.key from the DATA_DIR the database was used with (the server's, or the folder db:copy was run from) to ${path} (mode 0600), or set DATA_DIR to that folder.`;
  const recorded = await store.pseudonymKey.fingerprint();
  if (!existsSync(path) && recorded !== undefined) {
    throw new PseudonymKeyMismatchError(
      `No pseudonym key in ${resolve(dataDir)} (DATA_DIR), but this database's pseudonyms were made with one (fingerprint ${short(recorded)}…); a new key would give every session other pseudonyms. ${bring}`,
    );
  }
  const created = !existsSync(path);
  const key = loadOrCreatePseudonymKey(dataDir);
  const mine = pseudonymKeyFingerprint(key);
  const theirs = recorded ?? (await store.pseudonymKey.recordIfAbsent(mine, now));
  if (theirs === mine) return key;
  // Another node or command recorded its key first: ours, made just now, must not stay to be mistaken for it.
  if (created) rmSync(path, { force: true });
  throw new PseudonymKeyMismatchError(
    `The pseudonym key in ${path} (fingerprint ${short(mine)}…) is not the key of this database (fingerprint ${short(theirs)}…): its pseudonyms and resume codes would not match. ${bring}`,
  );
}
