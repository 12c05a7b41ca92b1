import crypto from 'node:crypto';

/**
 * Resume codes: what a participant types to reopen their session in another browser when their link
 * carries no per-visit id (Prolific SESSION_ID, MTurk assignmentId) the session started with.
 *
 * - 8 characters from a 30-letter alphabet without look-alikes (no 0/O, 1/I/L, U): 30^8 ≈ 6.6·10^11
 *   codes, shown as "ABCD-EFGH"; typed case-insensitively, dashes and spaces ignored.
 * - Stored only as an HMAC-SHA256 keyed with the installation's pseudonym key and bound to the session id,
 *   so a copy of the database alone cannot test codes offline and one code never opens another session.
 * - Attempts are rate-limited per IP by the route (participantRoutes.ts), so guessing is hopeless.
 */
export const RESUME_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
export const RESUME_CODE_LENGTH = 8;

/** A fresh random code, formatted for display ("K7QM-P3XD"). */
export function newResumeCode(): string {
  let raw = '';
  // randomInt is uniform (it rejects the biased draws itself) and reads a cached pool of random bytes, where a
  // randomBytes(1) per letter cost a call into OpenSSL and a Buffer each (17 µs a code against 0.3 µs, 2026-12-06).
  while (raw.length < RESUME_CODE_LENGTH) raw += RESUME_CODE_ALPHABET[crypto.randomInt(RESUME_CODE_ALPHABET.length)];
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
}

/** The canonical form of what a participant typed: upper case, without dashes/spaces; null when it cannot be a code. */
export function normalizeResumeCode(typed: string): string | null {
  const canonical = typed.toUpperCase().replace(/[\s-]/g, '');
  if (canonical.length !== RESUME_CODE_LENGTH) return null;
  for (const ch of canonical) if (!RESUME_CODE_ALPHABET.includes(ch)) return null;
  return canonical;
}

/** The stored form of a session's code. */
export function hashResumeCode(key: Buffer, sessionId: string, code: string): string {
  const canonical = normalizeResumeCode(code) ?? code;
  return crypto.createHmac('sha256', key).update(`resume-code\0${sessionId}\0${canonical}`, 'utf8').digest('hex');
}

/** Whether `typed` is the code whose hash is stored (constant-time comparison). */
export function resumeCodeMatches(key: Buffer, sessionId: string, typed: string, storedHash: string | null | undefined): boolean {
  if (!storedHash) return false;
  const canonical = normalizeResumeCode(typed);
  if (!canonical) return false;
  const a = Buffer.from(hashResumeCode(key, sessionId, canonical), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** A typed code in its display form ("k7qm p3xd" → "K7QM-P3XD"); call after it matched. */
export function displayResumeCode(typed: string): string {
  const canonical = normalizeResumeCode(typed) ?? typed;
  return `${canonical.slice(0, 4)}-${canonical.slice(4)}`;
}
