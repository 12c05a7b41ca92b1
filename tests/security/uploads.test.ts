/**
 * The image upload endpoint and the session file routes under attack: unauthenticated bodies, type
 * confusion (declared type vs. magic bytes, SVG/HTML), path traversal, disk filling, and how stored
 * files are served back (type, nosniff, disposition, no script context).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSocket, join, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { MAX_UPLOADS_PER_SESSION } from '../../server/services/uploads';
import { tinyPng } from '../support/png';
import { LEAK_PATTERN } from './support';

let t: TestServer;
let token: string;
let sessionId: string;

beforeAll(async () => {
  t = await startTestServer();
  const j = await join(t, 'visualization', { participant_label: 'upload-attacker' });
  token = j.token;
  sessionId = j.sessionId;
  await toWorkspace(await connectSocket(t, token));
});
afterAll(async () => {
  await t?.close();
});

async function upload(body: Uint8Array<ArrayBuffer>, options: { contentType?: string; name?: string; field?: string; auth?: string | null } = {}) {
  const query = new URLSearchParams({ field: options.field ?? 'plot', ...(options.name ? { name: options.name } : {}) });
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'image/png' };
  if (options.auth !== null) headers.authorization = `Bearer ${options.auth ?? token}`;
  const res = await fetch(`${t.server.url}/api/session/upload?${query}`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as any };
}

const uploadRows = () => t.server.store.uploads.count();

describe('POST /api/session/upload', () => {
  it('refuses a request without a valid token before reading its body (no 5 MB buffering for strangers)', async () => {
    const big = new Uint8Array(6 * 1024 * 1024); // over the 5 MB cap: a body-first server answers 413
    for (const auth of [null, 'x'.repeat(43)]) {
      const res = await upload(big, { auth });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    }
  });

  it('accepts only images whose bytes match the declared type; never SVG or HTML', async () => {
    const before = await uploadRows();
    const html = new TextEncoder().encode('<html><script>alert(document.cookie)</script></html>');
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const gif = new Uint8Array(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'));
    const pngWithHtmlTail = new Uint8Array(Buffer.concat([tinyPng(), Buffer.from('<script>alert(1)</script>')]));
    const cases: Array<[Uint8Array<ArrayBuffer>, string]> = [
      [html, 'image/png'],
      [html, 'text/html'],
      [svg, 'image/svg+xml'],
      [svg, 'image/png'],
      [gif, 'image/png'], // real GIF declared as PNG
      [new Uint8Array(tinyPng()), 'image/jpeg'], // real PNG declared as JPEG
      [new Uint8Array(tinyPng()), 'application/octet-stream'],
      [new Uint8Array(0), 'image/png'],
    ];
    for (const [bytes, type] of cases) {
      const res = await upload(bytes, { contentType: type });
      expect(res.status, `${type} ${bytes.length} bytes`).toBe(400);
      expect(res.body.ok).toBe(false);
    }
    expect(await uploadRows()).toBe(before);
    // A PNG with trailing bytes is still a PNG; it is served as image/png with nosniff, so the tail is inert.
    const ok = await upload(pngWithHtmlTail, { name: 'tail.png' });
    expect(ok.status).toBe(201);
    const served = await fetch(`${t.server.url}${ok.body.data.url}`, { headers: { authorization: `Bearer ${token}` } });
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps only a safe base name of the file name and stores the file under a server-chosen name', async () => {
    const names = ['../../../../etc/passwd.png', '..\\..\\windows\\win.ini.png', '<img src=x onerror=alert(1)>.png', 'a\u0000b.png', '%2e%2e%2fx.png'];
    for (const name of names) {
      const res = await upload(new Uint8Array(tinyPng()), { name });
      expect(res.status, name).toBe(201);
      expect(res.body.data.fileName).toMatch(/^[A-Za-z0-9._-]{1,100}$/);
      expect(res.body.data.fileName).not.toContain('..');
      const row = (await t.server.store.uploads.get(res.body.data.uploadId))!;
      expect(row.storagePath).toBe(path.join('uploads', sessionId, `${row.id}.png`));
    }
    // Nothing was written outside the data folder.
    expect(fs.existsSync(path.join(t.dataDir, '..', 'etc'))).toBe(false);
  });

  it('caps the number of stored uploads per session, so one participant cannot fill the disk', async () => {
    const j = await join(t, 'visualization', { participant_label: 'upload-flooder' });
    await toWorkspace(await connectSocket(t, j.token));
    let accepted = 0;
    let refused: any = null;
    for (let i = 0; i < MAX_UPLOADS_PER_SESSION + 5 && !refused; i++) {
      const res = await upload(new Uint8Array(tinyPng()), { auth: j.token });
      if (res.status === 201) accepted++;
      else refused = res;
    }
    expect(accepted).toBe(MAX_UPLOADS_PER_SESSION);
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe('too_large');
    expect(refused.body.error.message).toMatch(/at most \d+ images/);
    expect((await t.server.store.uploads.listForSession(j.sessionId))).toHaveLength(MAX_UPLOADS_PER_SESSION);
  });
});

describe('GET /api/session/uploads/:id and /api/session/materials/:name', () => {
  it('serves an upload as an image with nosniff, an inline disposition with a safe name, and a no-script policy', async () => {
    const up = await upload(new Uint8Array(tinyPng()), { name: 'my "plot"; x=1.png' });
    const res = await fetch(`${t.server.url}/api/session/uploads/${up.body.data.uploadId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="[A-Za-z0-9._-]+"$/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('sandbox');
  });

  it('resolves nothing outside the session: traversal, encoded slashes and foreign ids all 404 without leaking paths', async () => {
    const attempts = [
      '/api/session/uploads/..%2F..%2Ftandem.sqlite',
      '/api/session/uploads/%2e%2e%2f%2e%2e%2fpackage.json',
      '/api/session/uploads/00000000-0000-4000-8000-000000000000',
      '/api/session/materials/..%2F..%2Fpackage.json',
      '/api/session/materials/%2e%2e%2fvisualization.yaml',
      '/api/session/materials/..%5C..%5Cpackage.json',
      '/api/session/materials/study_habits.csv%00.png',
    ];
    for (const p of attempts) {
      const res = await fetch(`${t.server.url}${p}`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      expect(res.status, p).toBe(404);
      expect(text, p).not.toMatch(LEAK_PATTERN);
      expect(text).not.toContain('"name"'); // not package.json
    }
  });

  it('serves materials as downloads (attachment), never inline', async () => {
    const res = await fetch(`${t.server.url}/api/session/materials/study_habits.csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="?study_habits\.csv"?$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
