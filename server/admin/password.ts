import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../../lib/storage';

/**
 * The researcher password: ADMIN_PASSWORD from the environment, or generated at first start and printed
 * once. Only a scrypt hash is stored ("scrypt$N$r$p$salt$hash", base64url parts).
 */

const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export const MIN_ADMIN_PASSWORD_LENGTH = 10;

/**
 * Makes sure a researcher password exists. With ADMIN_PASSWORD set, it becomes the password (existing
 * logins end if it changed). Without it, a random one is generated on the very first start and printed
 * once through `announce`; later starts keep the stored hash and print nothing.
 */
export async function ensureAdminPassword(
  store: Store,
  env: NodeJS.ProcessEnv,
  log: Logger,
  announce: (text: string) => void = (text) => console.log(text),
  now = Date.now(),
): Promise<'env' | 'generated' | 'existing'> {
  const repo = store.adminAuth;
  const fromEnv = env.ADMIN_PASSWORD;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < MIN_ADMIN_PASSWORD_LENGTH) throw new Error(`ADMIN_PASSWORD must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`);
    const current = await repo.getCredential();
    if (!current || !(await verifyPassword(fromEnv, current.passwordHash))) {
      await repo.setCredential(await hashPassword(fromEnv), 'env', now);
      await repo.deleteAllSessions();
      log.info('researcher password set from ADMIN_PASSWORD');
    }
    return 'env';
  }
  if (await repo.getCredential()) return 'existing';
  const generated = randomBytes(18).toString('base64url');
  if (await repo.insertCredentialIfAbsent(await hashPassword(generated), 'generated', now)) {
    announce(
      [
        '──────────────────────────────────────────────────────────────',
        ' Researcher dashboard password (shown only this once):',
        `   ${generated}`,
        ' Log in at /admin. Set ADMIN_PASSWORD to choose your own.',
        '──────────────────────────────────────────────────────────────',
      ].join('\n'),
    );
    return 'generated';
  }
  return 'existing';
}
