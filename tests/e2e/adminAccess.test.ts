import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminPassword, verifyPassword } from '../../server/admin/password';
import { joinAsParticipant, loginAdmin, startAdminTestServer, TEST_ADMIN_PASSWORD, type AdminTestServer } from '../support/adminTestServer';
import { openStore } from '../../lib/storage';
import pino from 'pino';
import { AuditList, MonitorSnapshot, RunsStatus, SessionDetail, SessionList, StudySummaryList } from '../../common/admin';
import { Envelope } from '../../common/envelope';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { plotPng } from '../support/png';

const STUDY = 'travel-planning';

/** Every admin HTTP route with a method and a body that would be valid for a researcher. */
const ROUTES: { method: 'GET' | 'POST'; path: string; body?: unknown }[] = [
  { method: 'GET', path: '/api/admin/me' },
  { method: 'POST', path: '/api/admin/logout' },
  { method: 'GET', path: '/api/admin/studies' },
  { method: 'POST', path: `/api/admin/studies/${STUDY}/status`, body: { status: 'closed' } },
  { method: 'GET', path: `/api/admin/studies/${STUDY}/monitor` },
  { method: 'GET', path: `/api/admin/studies/${STUDY}/sessions` },
  { method: 'GET', path: `/api/admin/studies/${STUDY}/audit` },
  { method: 'GET', path: '/api/admin/sessions/SESSION' },
  { method: 'GET', path: '/api/admin/sessions/SESSION/uploads/x' },
  { method: 'POST', path: `/api/admin/studies/${STUDY}/exports`, body: { includeIdentities: true } },
  { method: 'GET', path: '/api/admin/exports/abc/download' },
  { method: 'POST', path: `/api/admin/studies/${STUDY}/withdrawals`, body: { participant: 'P1' } },
  { method: 'POST', path: `/api/admin/studies/${STUDY}/runs/judge` },
  { method: 'GET', path: `/api/admin/studies/${STUDY}/runs` },
  { method: 'GET', path: `/api/admin/studies/${STUDY}/analysis/report` },
  { method: 'GET', path: '/api/admin/nonexistent' },
];

let t: AdminTestServer;
let alice: { token: string; sessionId: string };
let bob: { token: string; sessionId: string };

function participantSocket(token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(t.url, { auth: { token }, transports: ['websocket'], forceNew: true });
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

function emit<T = unknown>(s: Socket, event: string, payload: unknown): Promise<{ ok: boolean; data?: T; error?: { code: string } }> {
  return new Promise((resolve) => s.emit(event, payload, resolve));
}

beforeAll(async () => {
  t = await startAdminTestServer();
  alice = await joinAsParticipant(t.url, STUDY, { PROLIFIC_PID: 'alice-pid-0001' });
  bob = await joinAsParticipant(t.url, STUDY, { PROLIFIC_PID: 'bob-pid-0002' });
});
afterAll(async () => {
  await t?.close();
});

describe('admin access control', () => {
  it.each(ROUTES)('$method $path without login → 401', async ({ method, path, body }) => {
    const res = await fetch(`${t.url}${path.replace('SESSION', alice.sessionId)}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it.each(ROUTES)('$method $path with a participant token → 401', async ({ method, path, body }) => {
    const target = path.replace('SESSION', alice.sessionId);
    const res = await fetch(`${t.url}${target}${target.includes('?') ? '&' : '?'}token=${alice.token}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}`, cookie: `tandem_admin=${alice.token}` },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(res.status).toBe(401);
  });

  it('refuses the /admin socket namespace without login or with a participant token', async () => {
    for (const opts of [{}, { auth: { token: alice.token } }, { extraHeaders: { cookie: `tandem_admin=${alice.token}` } }]) {
      const s = connect(`${t.url}/admin`, { transports: ['websocket'], forceNew: true, ...opts });
      const error = await new Promise<Error>((resolve, reject) => {
        s.once('connect_error', resolve);
        s.once('connect', () => reject(new Error('admin namespace accepted a stranger')));
      });
      await s.close();
      expect(error.message).toBe('unauthorized');
    }
  });

  it('serves the live monitor over /admin to a logged-in researcher, validates events, and drops the socket at logout', async () => {
    const admin = await loginAdmin(t.url);
    const s = connect(`${t.url}/admin`, { transports: ['websocket'], forceNew: true, extraHeaders: { cookie: admin.cookie } });
    await new Promise<void>((resolve, reject) => {
      s.once('connect', resolve);
      s.once('connect_error', reject);
    });
    const bad = await emit(s, 'monitor:subscribe', { studyId: 'Not A Slug' });
    expect(bad.ok).toBe(false);
    expect((bad.error as { code: string; field?: string }).field).toBe('studyId');
    expect((await emit(s, 'monitor:subscribe', { studyId: 'no-such-study' })).error?.code).toBe('not_found');
    const snap = await emit<{ sessions: { sessionId: string }[] }>(s, 'monitor:subscribe', { studyId: STUDY });
    expect(snap.ok).toBe(true);
    expect(snap.data!.sessions.map((x) => x.sessionId)).toContain(bob.sessionId);

    // a new participant appears in a pushed update
    const update = new Promise<{ sessions: { sessionId: string; step: string }[] }>((resolve) => {
      s.on('monitor:update', (u: { sessions: { sessionId: string; step: string }[] }) => {
        if (u.sessions.some((x) => x.sessionId === newcomer?.sessionId)) resolve(u);
      });
    });
    let newcomer: { sessionId: string } | undefined;
    newcomer = await joinAsParticipant(t.url, STUDY, { PROLIFIC_PID: 'newcomer-pid-0009' });
    const pushed = await update;
    expect(pushed.sessions.find((x) => x.sessionId === newcomer!.sessionId)?.step).toBe('consent');

    const closed = new Promise<void>((resolve) => s.once('disconnect', () => resolve()));
    await admin.post('/api/admin/logout');
    await closed;
    await s.close();
  });

  it('one participant token cannot reach another session', async () => {
    const a = await participantSocket(alice.token);
    const state = await emit<{ sessionId: string }>(a, 'session:state', {});
    expect(state.ok).toBe(true);
    expect(state.data?.sessionId).toBe(alice.sessionId);
    a.close();
    // Bob's session detail and uploads are admin-only: Alice's token is refused.
    const detail = await fetch(`${t.url}/api/admin/sessions/${bob.sessionId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(detail.status).toBe(401);
  });

  it('logs in with the password, sets strict HTTP-only cookies, and needs the CSRF token to change state', async () => {
    const wrong = await fetch(`${t.url}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'nope' }) });
    expect(wrong.status).toBe(401);

    const res = await fetch(`${t.url}/api/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    });
    expect(res.status).toBe(200);
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('tandem_admin='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Strict/i);
    expect(session).not.toMatch(/Secure/i); // plain http in tests
    const csrfCookie = cookies.find((c) => c.startsWith('tandem_admin_csrf='))!;
    expect(csrfCookie).not.toMatch(/HttpOnly/i);

    // behind an https proxy on loopback the cookies are Secure
    const https = await fetch(`${t.url}/api/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    });
    expect(https.headers.getSetCookie().every((c) => /;\s*Secure/i.test(c))).toBe(true);

    const admin = await loginAdmin(t.url);
    expect((await admin.get('/api/admin/studies')).status).toBe(200);
    const noCsrf = await fetch(`${t.url}/api/admin/studies/${STUDY}/status`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'pilot' }),
    });
    expect(noCsrf.status).toBe(403);
    expect((await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'pilot' }, { 'x-csrf-token': 'forged' })).status).toBe(403);
    // a CSRF token from another researcher session does not fit this one
    const other = await loginAdmin(t.url);
    expect((await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'pilot' }, { 'x-csrf-token': other.csrf })).status).toBe(403);
    const okRes = await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'live' });
    expect(okRes.status).toBe(200);

    // invalid body names the field
    const bad = await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'open' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('status');

    // logout ends the session
    expect((await admin.post('/api/admin/logout')).status).toBe(200);
    expect((await admin.get('/api/admin/studies')).status).toBe(401);
  });

  it('audits logins and status changes without personal data', async () => {
    const admin = await loginAdmin(t.url);
    await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'live' });
    const res = (await (await admin.get(`/api/admin/studies/${STUDY}/audit`)).json()) as { data: { action: string; actor: string; at: number }[] };
    const actions = res.data.map((e) => e.action);
    expect(actions).toContain('login');
    expect(actions).toContain('login_failed');
    expect(actions).toContain('status_change');
    expect(JSON.stringify(res.data)).not.toContain(TEST_ADMIN_PASSWORD);
  });

  it('marks sessions started in pilot mode and shows counts per condition and outcome', async () => {
    const admin = await loginAdmin(t.url);
    await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'pilot' });
    const pilot = await joinAsParticipant(t.url, STUDY, { PROLIFIC_PID: 'pilot-pid-0003' });
    await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'live' });
    expect((await t.server.store.sessions.get(pilot.sessionId))?.isPilot).toBe(true);
    const studies = (await (await admin.get('/api/admin/studies')).json()) as { data: { id: string; pilotSessions: number; totalSessions: number; counts: { isPilot: boolean; n: number }[] }[] };
    const study = studies.data.find((s) => s.id === STUDY)!;
    expect(study.pilotSessions).toBe(1);
    expect(study.totalSessions).toBeGreaterThanOrEqual(3);
    // a closed study takes nobody new
    await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'closed' });
    await expect(joinAsParticipant(t.url, STUDY, { PROLIFIC_PID: 'late-pid-0004' })).rejects.toThrow(/study_unavailable/);
    await admin.post(`/api/admin/studies/${STUDY}/status`, { status: 'live' });
  });

  it('rate-limits failed logins', async () => {
    const limited = await startAdminTestServer({ ADMIN_LOGIN_ATTEMPTS_PER_15_MIN: '3' });
    try {
      const attempt = () =>
        fetch(`${limited.url}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'guess' }) });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await attempt()).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.close();
      delete process.env.ADMIN_LOGIN_ATTEMPTS_PER_15_MIN;
    }
  });

  it('exports the study as a zip and withdraws a participant from the dashboard', async () => {
    const admin = await loginAdmin(t.url);
    const s = await participantSocket(alice.token);
    await emit(s, 'consent:respond', { accept: true, version: '2026-11-1', clientTs: Date.now() });
    await emit(s, 'step:advance', { from: 'instructions', clientTs: Date.now() });
    const sent = await emit(s, 'chat:send', { clientId: 'client-msg-0001', text: 'Reach me at alice@example.com', clientTs: Date.now() });
    expect(sent.ok).toBe(true);
    await s.close();

    const created = await admin.post(`/api/admin/studies/${STUDY}/exports`, { includePilot: false });
    expect(created.status).toBe(200);
    const job = ((await created.json()) as { data: { downloadUrl: string; sessions: number } }).data;
    // Alice consented; Bob never answered the consent, so his visit is left out by default (counted in the manifest).
    expect(job.sessions).toBeGreaterThanOrEqual(1);
    // another researcher session cannot fetch this ticket
    const stranger = await loginAdmin(t.url);
    expect((await stranger.get(job.downloadUrl)).status).toBe(404);
    const zip = await admin.get(job.downloadUrl);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const file = join(t.dataDir, 'download.zip');
    writeFileSync(file, Buffer.from(await zip.arrayBuffer()));
    const listing = execFileSync('unzip', ['-l', file], { encoding: 'utf8' });
    for (const name of ['sessions.csv', 'messages.jsonl', 'events.jsonl', 'manifest.json', 'codebook.md', 'datapackage.json']) expect(listing).toContain(`tandem-${STUDY}/${name}`);
    expect(listing).not.toContain('identities.csv');
    const messages = execFileSync('unzip', ['-p', file, `tandem-${STUDY}/messages.jsonl`], { encoding: 'utf8' });
    expect(messages).toContain('Reach me at [REDACTED:email]');
    expect(messages).not.toContain('alice@example.com');
    const manifest = JSON.parse(execFileSync('unzip', ['-p', file, `tandem-${STUDY}/manifest.json`], { encoding: 'utf8' })) as {
      counts: { sessions: number; excluded_unconsented_sessions: number };
    };
    expect(manifest.counts.sessions).toBe(job.sessions);
    expect(manifest.counts.excluded_unconsented_sessions).toBeGreaterThanOrEqual(1);
    // a ticket downloads once
    expect((await admin.get(job.downloadUrl)).status).toBe(404);

    const w = await admin.post(`/api/admin/studies/${STUDY}/withdrawals`, { participant: 'alice-pid-0001' });
    expect(w.status).toBe(200);
    expect(((await w.json()) as { data: { deletedSessions: number } }).data.deletedSessions).toBe(1);
    expect((await t.server.store.sessions.get(alice.sessionId))).toBeUndefined();
    const actions = (await t.server.store.audit.list({ studyId: STUDY })).map((e) => e.action);
    expect(actions[0]).toBe('withdrawal');
    expect(actions).toContain('export');
  });
});

describe('judge and analysis from the dashboard', () => {
  it('runs the (offline) judge and the analysis, then shows Q, Pz and the report', async () => {
    const admin = await loginAdmin(t.url);
    const ids: string[] = [];
    for (const [i, pid] of ['carol-pid-0005', 'dave-pid-0006', 'erin-pid-0007'].entries()) {
      const p = await joinAsParticipant(t.url, STUDY, { PROLIFIC_PID: pid });
      ids.push(p.sessionId);
      const s = await participantSocket(p.token);
      await emit(s, 'consent:respond', { accept: true, version: '2026-11-1', clientTs: Date.now() });
      await emit(s, 'step:advance', { from: 'instructions', clientTs: Date.now() });
      expect((await emit(s, 'chat:send', { clientId: `client-run-000${i}`, text: 'Plan Lisbon for two days please', clientTs: Date.now() })).ok).toBe(true);
      const submitted = await emit(s, 'artifact:submit', { fields: { itinerary: `Day 1: Alfama. ${'Day 2: Belem, pasteis. '.repeat(i * 5 + 1)}` }, clientTs: Date.now() });
      expect(submitted.ok).toBe(true);
      await s.close();
    }

    const waitFor = async (kind: 'judge' | 'analysis') => {
      for (let i = 0; i < 200; i++) {
        const r = ((await (await admin.get(`/api/admin/studies/${STUDY}/runs`)).json()) as { data: Record<string, { state: string; message: string } | null> }).data[kind];
        if (r && r.state !== 'running') return r;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${kind} run did not finish`);
    };

    const judge = await admin.post(`/api/admin/studies/${STUDY}/runs/judge`);
    expect(judge.status).toBe(202);
    expect((await waitFor('judge')).state).toBe('done');
    const detail = ((await (await admin.get(`/api/admin/sessions/${ids[0]}`)).json()) as { data: { judge: { quality: number | null; samples: unknown[] }; pz: number | null } }).data;
    expect(detail.judge.samples.length).toBe(3);
    expect(detail.judge.quality).not.toBeNull();
    expect(typeof detail.pz).toBe('number');

    // the export carries the judge samples and Q
    const job = ((await (await admin.post(`/api/admin/studies/${STUDY}/exports`, {})).json()) as { data: { downloadUrl: string } }).data;
    const zipFile = join(t.dataDir, 'judged.zip');
    writeFileSync(zipFile, Buffer.from(await (await admin.get(job.downloadUrl)).arrayBuffer()));
    const judgements = execFileSync('unzip', ['-p', zipFile, `tandem-${STUDY}/judgements.csv`], { encoding: 'utf8' }).trim().split('\n');
    expect(judgements[0]).toBe('session_id,rubric_id,rubric_hash,model,sample,score,parse_ok,cached,artifact_version,images');
    expect(judgements.length - 1).toBe(9);
    const sessionsCsv = execFileSync('unzip', ['-p', zipFile, `tandem-${STUDY}/sessions.csv`], { encoding: 'utf8' });
    const header = sessionsCsv.split('\n')[0]!.split(',');
    const qualities = sessionsCsv.trim().split('\n').slice(1).map((l) => l.split(',')[header.indexOf('quality')]).filter((q) => q !== '');
    expect(qualities).toHaveLength(3);

    expect((await admin.get(`/api/admin/studies/${STUDY}/analysis/report`)).status).toBe(404);
    expect((await admin.post(`/api/admin/studies/${STUDY}/runs/analysis`)).status).toBe(202);
    const analysis = await waitFor('analysis');
    expect(analysis.state, analysis.message).toBe('done');
    const report = await admin.get(`/api/admin/studies/${STUDY}/analysis/report`);
    expect(report.status).toBe(200);
    expect(report.headers.get('content-security-policy')).toContain('sandbox');
    expect(await report.text()).toContain('<svg');
    const actions = (await t.server.store.audit.list({ studyId: STUDY })).map((e) => e.action);
    expect(actions).toContain('judge_run');
    expect(actions).toContain('analysis_run');
    expect((await admin.post(`/api/admin/studies/${STUDY}/runs/nonsense`)).status).toBe(404);
  });

  it('refuses a judge run with a bad images choice (400 naming the field), and starts nothing', async () => {
    const admin = await loginAdmin(t.url);
    const auditRows = async () => (await t.server.store.audit.list({ studyId: 'visualization' })).length;
    const before = await auditRows();
    for (const body of [{ images: 'bogus' }, { images: true }, { images: 'attach', detail: 'high' }]) {
      const res = await admin.post('/api/admin/studies/visualization/runs/judge', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const reply = (await res.json()) as { ok: boolean; error: { code: string; message: string; field?: string } };
      expect(reply.error.code).toBe('invalid_input');
      expect(reply.error.message).toMatch(body.images === 'attach' ? /detail/ : /images/);
      if (body.images !== 'attach') expect(reply.error.field).toBe('images');
    }
    expect(await auditRows()).toBe(before);
    const status = ((await (await admin.get('/api/admin/studies/visualization/runs')).json()) as { data: RunsStatus }).data;
    expect(status.judge).toBeNull();
  });

  it('offers attaching images only for studies with an image field', async () => {
    const admin = await loginAdmin(t.url);
    const fields = async (study: string) => ((await (await admin.get(`/api/admin/studies/${study}/runs`)).json()) as { data: RunsStatus }).data.imageFields;
    expect(await fields('visualization')).toEqual(['Your plot (image)']);
    expect(await fields(STUDY)).toEqual([]);
  });

  it('judges with the uploaded plot attached when asked (images: attach), and audits the choice', async () => {
    const admin = await loginAdmin(t.url);
    const p = await joinAsParticipant(t.url, 'visualization', { PROLIFIC_PID: 'frank-pid-0008' });
    const s = await participantSocket(p.token);
    await emit(s, 'consent:respond', { accept: true, version: '2026-11-1', clientTs: Date.now() });
    await emit(s, 'step:advance', { from: 'instructions', clientTs: Date.now() });
    expect((await emit(s, 'chat:send', { clientId: 'client-img-0001', text: 'How do I plot study hours against the score?', clientTs: Date.now() })).ok).toBe(true);
    const png = plotPng(20, 14);
    const upload = await fetch(`${t.url}/api/session/upload?field=plot&name=plot.png`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.token}`, 'content-type': 'image/png' },
      body: new Uint8Array(png),
    });
    expect(upload.status).toBe(201);
    const uploadId = ((await upload.json()) as { data: { uploadId: string } }).data.uploadId;
    const fields = { hypothesis: 'More study hours, higher scores.', code: 'df.plot.scatter("study_hours", "exam_score")', plot: uploadId, interpretation: 'The points rise to the right.' };
    expect((await emit(s, 'artifact:submit', { fields, clientTs: Date.now() })).ok).toBe(true);
    await s.close();

    const rows = async () =>
      (await t.server.store.judgements.listForSession(p.sessionId))
        .sort((a, b) => a.sample - b.sample)
        .map((j) => ({ images: j.images === undefined ? null : JSON.stringify(j.images) }));
    const runJudge = async (body: unknown) => {
      expect((await admin.post('/api/admin/studies/visualization/runs/judge', body)).status).toBe(202);
      for (let i = 0; i < 200; i++) {
        const r = ((await (await admin.get('/api/admin/studies/visualization/runs')).json()) as { data: RunsStatus }).data.judge;
        if (r && r.state !== 'running') return r;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('judge run did not finish');
    };

    // the default stays text-only: no image list is recorded
    const plain = await runJudge({});
    expect(plain.state, plain.message).toBe('done');
    expect((await rows()).map((r) => r.images)).toEqual([null, null, null]);

    const attached = await runJudge({ images: 'attach' });
    expect(attached.state, attached.message).toBe('done');
    expect(attached.message).toContain('images attached');
    const sha256 = createHash('sha256').update(png).digest('hex');
    const lists = (await rows()).map((r) => JSON.parse(r.images ?? 'null') as unknown);
    expect(lists).toHaveLength(3);
    for (const list of lists) expect(list).toEqual([{ field: 'plot', mediaType: 'image/png', bytes: png.length, sha256 }]);

    const judgeRuns = (await t.server.store.audit.list({ studyId: 'visualization' }))
      .filter((e) => e.action === 'judge_run')
      .map((e) => e.details);
    expect(judgeRuns).toEqual(expect.arrayContaining([{ images: 'describe' }, { images: 'attach' }]));
  });
});

describe('admin replies match the shared schemas (common/admin.ts)', () => {
  it('every JSON read route answers with its schema inside the envelope', async () => {
    const admin = await loginAdmin(t.url);
    const read = async (path: string) => (await admin.get(path)).json();
    const sessions = Envelope(SessionList).parse(await read(`/api/admin/studies/${STUDY}/sessions`));
    expect(sessions.ok).toBe(true);
    const someSession = sessions.ok ? sessions.data[0]?.sessionId : undefined;
    expect(someSession).toBeDefined();
    for (const [path, schema] of [
      ['/api/admin/studies', StudySummaryList],
      [`/api/admin/studies/${STUDY}/monitor`, MonitorSnapshot],
      [`/api/admin/studies/${STUDY}/audit`, AuditList],
      [`/api/admin/studies/${STUDY}/runs`, RunsStatus],
      [`/api/admin/sessions/${someSession}`, SessionDetail],
    ] as const) {
      const reply = Envelope(schema).safeParse(await read(path));
      expect(reply.success, `${path}: ${reply.error?.issues[0]?.path.join('.')} ${reply.error?.issues[0]?.message}`).toBe(true);
      expect(reply.data?.ok, path).toBe(true);
    }
  });
});

describe('researcher password', () => {
  it('is generated at first start, printed once, stored only as a scrypt hash', async () => {
    const store = await openStore({ dataDir: mkdtempSync(join(tmpdir(), 'tandem-pw-')) });
    const printed: string[] = [];
    const log = pino({ level: 'silent' });
    expect(await ensureAdminPassword(store, {}, log, (s) => printed.push(s))).toBe('generated');
    expect(await ensureAdminPassword(store, {}, log, (s) => printed.push(s))).toBe('existing');
    expect(printed).toHaveLength(1);
    const password = /\n {3}(\S+)\n/.exec(printed[0]!)?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(20);
    const stored = (await store.adminAuth.getCredential())!;
    expect(stored.passwordHash).toMatch(/^scrypt\$/);
    expect(stored.passwordHash).not.toContain(password);
    expect(await verifyPassword(password, stored.passwordHash)).toBe(true);
    expect(await verifyPassword(`${password}x`, stored.passwordHash)).toBe(false);
    // ADMIN_PASSWORD replaces it
    expect(await ensureAdminPassword(store, { ADMIN_PASSWORD: 'another-long-password' }, log, (s) => printed.push(s))).toBe('env');
    expect(await verifyPassword('another-long-password', (await store.adminAuth.getCredential())!.passwordHash)).toBe(true);
    await expect(ensureAdminPassword(store, { ADMIN_PASSWORD: 'short' }, log)).rejects.toThrow(/at least 10/);
    await store.close();
  });
});
