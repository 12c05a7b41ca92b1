/**
 * Whole-server HTTP hardening: the SPA's Content-Security-Policy, body size limits, and error responses
 * that never leak a stack, a path or SQL — and never copy a request body (a password!) into the log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import { ROOT, startTestServer } from '../support/integrationHarness';
import { adminLogin, LEAK_PATTERN, startAdminServer, type LoggedServer } from './support';

const ADMIN_PASSWORD = 'security-review-password-1';
let t: LoggedServer;

beforeAll(async () => {
  t = await startAdminServer(ADMIN_PASSWORD);
});
afterAll(async () => {
  await t?.close();
});

async function post(p: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, text, json: (() => { try { return JSON.parse(text); } catch { return null; } })() as any };
}

describe('Content-Security-Policy of the single-page app', () => {
  it('allows scripts from our origin only (no inline, no eval), no plugins, no framing by others', async () => {
    const res = await fetch(`${t.server.url}/study/visualization`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directive = (name: string) => csp.split(';').map((d) => d.trim()).find((d) => d.startsWith(`${name} `)) ?? '';
    expect(directive('script-src')).toBe("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval/);
    expect(directive('script-src-attr')).toBe("script-src-attr 'none'");
    expect(directive('object-src')).toBe("object-src 'none'");
    expect(directive('frame-ancestors')).toMatch(/frame-ancestors ('self'|'none')/);
    expect(directive('base-uri')).toMatch(/base-uri ('self'|'none')/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('the built index.html has no inline script for that policy to block', () => {
    const index = path.join(ROOT, 'dist', 'client', 'index.html');
    if (!fs.existsSync(index)) return; // client not built in this checkout; the header test above still holds
    const html = fs.readFileSync(index, 'utf8');
    for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? []) {
      expect(tag).toMatch(/\bsrc="/);
      expect(tag.replace(/<script\b[^>]*>/, '').replace('</script>', '').trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });
});

describe('bad request bodies', () => {
  it('malformed or oversized JSON on participant and admin routes gets a 4xx envelope, not a 500', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['/api/join', '{"studyId":', 400, 'invalid_input'],
      ['/api/join', JSON.stringify({ studyId: 'x', params: { a: 'y'.repeat(100_000) } }), 413, 'too_large'],
      ['/api/admin/login', '{"password": "oops', 400, 'invalid_input'],
      ['/api/admin/login', JSON.stringify({ password: 'z'.repeat(100_000) }), 413, 'too_large'],
    ];
    for (const [p, body, status, code] of cases) {
      const res = await post(p, body);
      expect(res.status, `${p} ${body.slice(0, 20)}`).toBe(status);
      expect(res.json).toMatchObject({ ok: false, error: { code } });
      expect(res.text).not.toMatch(LEAK_PATTERN);
    }
  });

  it('a 1 MB /api/join body is told the real limit of that route (32 KB), not the upload limit', async () => {
    const res = await post('/api/join', JSON.stringify({ studyId: 'visualization', params: { a: 'y'.repeat(1024 * 1024) } }));
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ ok: false, error: { code: 'too_large' } });
    expect(res.json.error.message).toMatch(/at most 32 KB/);
    expect(res.json.error.message).not.toMatch(/upload|5 MB/);
  });

  it('every 413 states the limit of the route that refused it (participant 32 KB, admin 16 KB)', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['/api/join', JSON.stringify({ studyId: 'x', params: { a: 'y'.repeat(100_000) } }), /at most 32 KB/],
      ['/api/admin/login', JSON.stringify({ password: 'z'.repeat(100_000) }), /at most 16 KB/],
    ];
    for (const [p, body, limit] of cases) {
      const res = await post(p, body);
      expect(res.status, p).toBe(413);
      expect(res.json.error.message, p).toMatch(limit);
    }
  });

  it('never copies a request body into the server log (a half-typed password stays out of it)', async () => {
    const secret = 'MyRealPassw0rd-do-not-log';
    await post('/api/admin/login', `{"password": "${secret}`);
    await post('/api/join', `{"studyId":"visualization","params":{"PROLIFIC_PID":"${secret}"`);
    expect(t.logText()).not.toContain(secret);
  });

  it('malformed JSON on a logged-in admin route is a 400 too', async () => {
    const admin = await adminLogin(t.server.url, ADMIN_PASSWORD);
    const res = await post('/api/admin/studies/travel-planning/status', '{"status":', { cookie: admin.cookie, 'x-csrf-token': admin.csrf });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('odd URLs and methods never produce a stack trace or a 500', async () => {
    const probes: Array<[string, string]> = [
      ['GET', '/%E0%A4%A'],
      ['GET', '/assets/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json'],
      ['GET', '/api/studies/%00/public'],
      ['GET', '/api/studies/..%2F..%2Fpackage.json/public'],
      ['PUT', '/api/join'],
      ['DELETE', '/api/session/uploads/x'],
      ['GET', '/api/session/uploads/%E0%A4%A'],
    ];
    for (const [method, p] of probes) {
      const res = await fetch(`${t.server.url}${p}`, { method });
      const text = await res.text();
      expect(res.status, `${method} ${p}`).toBeLessThan(500);
      expect(text, `${method} ${p}`).not.toMatch(LEAK_PATTERN);
    }
  });
});

describe('the data folder', () => {
  it('is created readable by its owner only (it holds identities, uploads and the pseudonym key)', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-perm-'));
    fs.chmodSync(parent, 0o755);
    const dataDir = path.join(parent, 'data');
    const s = await startTestServer({ dataDir });
    try {
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      await s.close();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
