/**
 * The participant session routes authorise with `Authorization: Bearer <token>` only: a token in the
 * URL (`?token=`, which leaks into browser history and proxy logs) opens nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSocket, join, startTestServer, toWorkspace, type TestServer } from '../../tests/support/integrationHarness';
import { tinyPng } from '../../tests/support/png';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const uploadCount = () => t.server.store.uploads.count();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function participantWithUpload(label: string): Promise<{ token: string; uploadId: string }> {
  const j = await join(t, 'visualization', { participant_label: label });
  await toWorkspace(await connectSocket(t, j.token));
  const res = await fetch(`${t.server.url}/api/session/upload?field=plot&name=plot.png`, {
    method: 'POST',
    headers: { ...bearer(j.token), 'content-type': 'image/png' },
    body: new Uint8Array(tinyPng()),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { data: { uploadId: string } };
  return { token: j.token, uploadId: body.data.uploadId };
}

describe('participant session routes', () => {
  it('serve the session’s own upload and materials with the Authorization header', async () => {
    const p = await participantWithUpload('routes-header');
    const image = await fetch(`${t.server.url}/api/session/uploads/${p.uploadId}`, { headers: bearer(p.token) });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(tinyPng())).toBe(true);
    const material = await fetch(`${t.server.url}/api/session/materials/study_habits.csv`, { headers: bearer(p.token) });
    expect(material.status).toBe(200);
    expect(material.headers.get('content-disposition')).toContain('study_habits.csv');
    expect((await material.text()).split('\n')[0]).toContain('study_hours');
  });

  it('refuse a token in the URL (?token=) on every session route, with a message naming the header', async () => {
    const p = await participantWithUpload('routes-query');
    const q = `token=${encodeURIComponent(p.token)}`;
    const before = await uploadCount();
    const targets: [string, RequestInit][] = [
      [`/api/session/uploads/${p.uploadId}?${q}`, {}],
      [`/api/session/materials/study_habits.csv?${q}`, {}],
      [`/api/session/upload?field=plot&name=x.png&${q}`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: new Uint8Array(tinyPng()) }],
    ];
    for (const [target, init] of targets) {
      const res = await fetch(`${t.server.url}${target}`, init);
      expect(res.status, target).toBe(401);
      const body = (await res.json()) as { ok: boolean; error: { code: string; message: string } };
      expect(body).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
      expect(body.error.message).toMatch(/Authorization: Bearer/);
      expect(JSON.stringify(body)).not.toContain(p.token);
    }
    // the refused upload stored nothing
    expect(await uploadCount()).toBe(before);
  });

  it('a valid header wins over a stale ?token=, and a query token never rescues a bad header', async () => {
    const a = await participantWithUpload('routes-a');
    const b = await participantWithUpload('routes-b');
    const own = await fetch(`${t.server.url}/api/session/uploads/${a.uploadId}?token=${encodeURIComponent(b.token)}`, { headers: bearer(a.token) });
    expect(own.status).toBe(200);
    // B's header cannot read A's upload even with A's token in the URL
    const stolen = await fetch(`${t.server.url}/api/session/uploads/${a.uploadId}?token=${encodeURIComponent(a.token)}`, { headers: bearer(b.token) });
    expect(stolen.status).toBe(404);
    const unknown = await fetch(`${t.server.url}/api/session/uploads/${a.uploadId}?token=${encodeURIComponent(a.token)}`, { headers: bearer('x'.repeat(43)) });
    expect(unknown.status).toBe(401);
  });
});
