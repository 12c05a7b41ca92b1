/**
 * Every admin route, discovered from the source (so a route added later is checked too), refuses a
 * stranger (401), a participant token (401), and — when it changes state — a researcher request
 * without the CSRF header (403) or with a CSRF header from another login (403).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, ROOT } from '../support/integrationHarness';
import { adminLogin, LEAK_PATTERN, startAdminServer, type LoggedServer } from './support';

const ADMIN_PASSWORD = 'security-review-password-3';
let t: LoggedServer;

/** `router.post('/api/admin/…'` and `guarded.get(…)` calls in the admin route files. */
function adminRoutesFromSource(): { method: string; path: string }[] {
  const dir = path.join(ROOT, 'server', 'admin');
  const found: { method: string; path: string }[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/\b\w+\.(get|post|put|patch|delete)\(\s*'(\/api\/admin\/[^']*)'/g)) found.push({ method: m[1]!.toUpperCase(), path: m[2]! });
  }
  return found;
}

const concrete = (p: string) =>
  p
    .replace(':studyId', 'travel-planning')
    .replace(':sessionId', '00000000-0000-4000-8000-000000000000')
    .replace(':uploadId', '00000000-0000-4000-8000-000000000001')
    .replace(':ticket', 'abc')
    .replace(':kind', 'judge');

beforeAll(async () => {
  t = await startAdminServer(ADMIN_PASSWORD);
});
afterAll(async () => {
  await t?.close();
});

describe('admin routes', () => {
  it('are found in the source (the check below is not vacuous)', () => {
    const routes = adminRoutesFromSource();
    expect(routes.length).toBeGreaterThanOrEqual(10);
    expect(routes.filter((r) => r.method !== 'GET').length).toBeGreaterThanOrEqual(4);
  });

  it('refuse strangers and participant tokens with 401, without leaking internals', async () => {
    const participant = await join(t, 'travel-planning', { participant_label: 'admin-guard-p' });
    for (const route of adminRoutesFromSource()) {
      if (route.path === '/api/admin/login') continue;
      for (const headers of [{}, { authorization: `Bearer ${participant.token}` }, { cookie: `tandem_admin=${participant.token}` }] as Record<string, string>[]) {
        const res = await fetch(`${t.server.url}${concrete(route.path)}`, {
          method: route.method,
          headers: { 'content-type': 'application/json', ...headers },
          ...(route.method === 'GET' ? {} : { body: '{}' }),
        });
        const text = await res.text();
        expect(res.status, `${route.method} ${route.path} ${Object.keys(headers)}`).toBe(401);
        expect(text).not.toMatch(LEAK_PATTERN);
      }
    }
  });

  it('that change state refuse a logged-in researcher without the right CSRF token (403) and change nothing', async () => {
    const admin = await adminLogin(t.server.url, ADMIN_PASSWORD);
    const other = await adminLogin(t.server.url, ADMIN_PASSWORD);
    const auditRows = async () => (await t.server.store.countRows()).audit_log;
    const before = await auditRows();
    const statusBefore = (await t.server.store.studies.get('travel-planning'))!.status;
    for (const route of adminRoutesFromSource().filter((r) => r.method !== 'GET' && r.path !== '/api/admin/login')) {
      for (const csrf of [undefined, other.csrf, '']) {
        const res = await fetch(`${t.server.url}${concrete(route.path)}`, {
          method: route.method,
          headers: { 'content-type': 'application/json', cookie: admin.cookie, ...(csrf !== undefined ? { 'x-csrf-token': csrf } : {}) },
          body: JSON.stringify({ status: 'closed', participant: 'P1' }),
        });
        expect(res.status, `${route.method} ${route.path} csrf=${csrf === undefined ? 'none' : csrf === '' ? 'empty' : 'other login'}`).toBe(403);
      }
    }
    expect(await auditRows()).toBe(before);
    expect((await t.server.store.studies.get('travel-planning'))!.status).toBe(statusBefore);
    // The session still works with its own token (the refusals did not log it out).
    const me = await fetch(`${t.server.url}/api/admin/me`, { headers: { cookie: admin.cookie } });
    expect(me.status).toBe(200);
  });

  it('set the researcher cookie HTTP-only and SameSite=Strict, and Secure behind an https proxy', async () => {
    const login = (headers: Record<string, string>) =>
      fetch(`${t.server.url}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ password: ADMIN_PASSWORD }) });
    const plain = (await login({})).headers.getSetCookie();
    const session = plain.find((c) => c.startsWith('tandem_admin='))!;
    expect(session).toMatch(/; HttpOnly/i);
    expect(session).toMatch(/; SameSite=Strict/i);
    // A TLS-terminating proxy on the same machine says so with X-Forwarded-Proto: then the cookie is Secure.
    const proxied = (await login({ 'x-forwarded-proto': 'https' })).headers.getSetCookie();
    expect(proxied.find((c) => c.startsWith('tandem_admin='))).toMatch(/; Secure/i);
  });
});
