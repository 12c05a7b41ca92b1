/**
 * The client's session-file fetcher against the real server: images and materials are read with the
 * token in the Authorization header (never in the URL) and saved through a blob: URL that is revoked.
 */
import { resolveObjectURL } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSocket, join, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { tinyPng } from '../support/png';
import { RequestError } from '../../client/socket/errors';
import { downloadSessionFile, fetchSessionFile } from '../../client/participant/sessionFiles';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** fetch against the test server (the client passes same-origin paths), recording what was requested. */
function recordingFetch() {
  const requests: { url: string; authorization: string | null }[] = [];
  const impl: typeof fetch = (input, init) => {
    const url = String(input);
    requests.push({ url, authorization: new Headers(init?.headers).get('authorization') });
    return fetch(`${t.server.url}${url}`, init);
  };
  return { impl, requests };
}

async function participantWithUpload(label: string) {
  const j = await join(t, 'visualization', { participant_label: label });
  await toWorkspace(await connectSocket(t, j.token));
  const res = await fetch(`${t.server.url}/api/session/upload?field=plot&name=plot.png`, {
    method: 'POST',
    headers: { authorization: `Bearer ${j.token}`, 'content-type': 'image/png' },
    body: new Uint8Array(tinyPng()),
  });
  const body = (await res.json()) as { data: { uploadId: string; url: string } };
  return { token: j.token, url: body.data.url };
}

describe('fetchSessionFile', () => {
  it('reads the session’s own upload with the Authorization header; the URL carries no token', async () => {
    const p = await participantWithUpload('files-own');
    const f = recordingFetch();
    const blob = await fetchSessionFile(p.url, p.token, f.impl);
    expect(blob.type).toBe('image/png');
    expect(Buffer.from(await blob.arrayBuffer()).equals(tinyPng())).toBe(true);
    expect(f.requests).toEqual([{ url: p.url, authorization: `Bearer ${p.token}` }]);
    expect(f.requests[0]!.url).not.toContain('token');
  });

  it("turns the server's refusal into a RequestError with its message (another session's upload, a bad token)", async () => {
    const a = await participantWithUpload('files-a');
    const b = await participantWithUpload('files-b');
    const f = recordingFetch();
    const stolen = await fetchSessionFile(a.url, b.token, f.impl).catch((e: unknown) => e);
    expect(stolen).toBeInstanceOf(RequestError);
    expect(stolen).toMatchObject({ code: 'not_found' });
    const unknown = await fetchSessionFile(a.url, 'x'.repeat(43), f.impl).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'unauthorized', message: 'missing or unknown participant token' });
  });

  it('reports an unreachable server as disconnected', async () => {
    const down: typeof fetch = () => Promise.reject(new TypeError('fetch failed'));
    await expect(fetchSessionFile('/api/session/uploads/x', 'tok', down)).rejects.toMatchObject({ code: 'disconnected' });
  });
});

describe('downloadSessionFile', () => {
  it('saves the material through a blob: URL under its name, then revokes the URL', async () => {
    const p = await participantWithUpload('files-download');
    const f = recordingFetch();
    const saved: { objectUrl: string; fileName: string }[] = [];
    await downloadSessionFile('/api/session/materials/study_habits.csv', p.token, 'study_habits.csv', {
      fetchImpl: f.impl,
      revokeAfterMs: 20,
      save: (objectUrl, fileName) => {
        saved.push({ objectUrl, fileName });
      },
    });
    expect(f.requests).toEqual([{ url: '/api/session/materials/study_habits.csv', authorization: `Bearer ${p.token}` }]);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.objectUrl).toMatch(/^blob:/);
    expect(saved[0]!.fileName).toBe('study_habits.csv');
    const blob = resolveObjectURL(saved[0]!.objectUrl);
    expect(blob).toBeDefined();
    expect((await blob!.text()).split('\n')[0]).toContain('study_hours');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(resolveObjectURL(saved[0]!.objectUrl)).toBeUndefined(); // revoked
  });

  it('saves nothing when the server refuses', async () => {
    const f = recordingFetch();
    let saves = 0;
    await expect(
      downloadSessionFile('/api/session/materials/study_habits.csv', 'x'.repeat(43), 'study_habits.csv', { fetchImpl: f.impl, save: () => saves++ }),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    expect(saves).toBe(0);
  });
});
