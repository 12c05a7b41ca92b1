import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { AdminAuthRepo, AdminSessionRow, Store } from '../../lib/storage';
import { sendFail } from '../http/respond';

/**
 * Researcher sessions: an HTTP-only, SameSite=Strict cookie holding a random token (only its SHA-256 is
 * stored), Secure whenever the request came over https. State-changing requests also need the CSRF token
 * (double submit: the readable `tandem_admin_csrf` cookie echoed in the `X-CSRF-Token` header, and it must
 * equal the one bound to the session). Participant tokens are never accepted here.
 */

export const SESSION_COOKIE = 'tandem_admin';
export const CSRF_COOKIE = 'tandem_admin_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface AdminPrincipal {
  actor: string;
  tokenHash: string;
  csrfToken: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    admin?: AdminPrincipal;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class AdminSessions {
  private readonly repo: AdminAuthRepo;

  constructor(store: Store, private readonly now: () => number) {
    this.repo = store.adminAuth;
  }

  async create(actor: string): Promise<{ token: string; csrfToken: string; expiresAt: number }> {
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    const now = this.now();
    await this.repo.deleteExpired(now);
    const expiresAt = now + SESSION_TTL_MS;
    await this.repo.insertSession({ tokenHash: sha256(token), csrfToken, actor, createdAt: now, expiresAt, lastSeenAt: now });
    return { token, csrfToken, expiresAt };
  }

  /** The live session for a cookie token, or undefined. */
  async resolve(token: string | undefined): Promise<AdminSessionRow | undefined> {
    if (!token || token.length > 200) return undefined;
    return this.repo.findLiveSession(sha256(token), this.now());
  }

  async end(tokenHash: string): Promise<void> {
    await this.repo.deleteSession(tokenHash);
  }
}

export function setSessionCookies(req: Request, res: Response, session: { token: string; csrfToken: string }): void {
  const base = { sameSite: 'strict' as const, secure: req.secure, path: '/', maxAge: SESSION_TTL_MS };
  res.cookie(SESSION_COOKIE, session.token, { ...base, httpOnly: true });
  res.cookie(CSRF_COOKIE, session.csrfToken, { ...base, httpOnly: false });
}

export function clearSessionCookies(req: Request, res: Response): void {
  const base = { sameSite: 'strict' as const, secure: req.secure, path: '/' };
  res.clearCookie(SESSION_COOKIE, { ...base, httpOnly: true });
  res.clearCookie(CSRF_COOKIE, base);
}

/** 401 unless a researcher session cookie is present and live. */
export function requireAdmin(sessions: AdminSessions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const token = (req.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE];
    sessions.resolve(token).then(
      (session) => {
        if (!session) return sendFail(res, 'unauthorized', 'researcher login required');
        req.admin = { actor: session.actor, tokenHash: session.tokenHash, csrfToken: session.csrfToken };
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/** 403 unless the CSRF header matches both the CSRF cookie and the session's token (for POST/PUT/PATCH/DELETE). */
export function requireCsrf(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  const header = req.get(CSRF_HEADER) ?? '';
  const cookie = (req.cookies as Record<string, string> | undefined)?.[CSRF_COOKIE] ?? '';
  const bound = req.admin?.csrfToken ?? '';
  if (!header || !safeEqual(header, cookie) || !safeEqual(header, bound)) return sendFail(res, 'forbidden', `missing or wrong CSRF token (send the ${CSRF_COOKIE} cookie value in the X-CSRF-Token header)`);
  next();
}

/** Reads one cookie from a raw Cookie header (socket.io handshakes have no cookie-parser). */
export function cookieFromHeader(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
