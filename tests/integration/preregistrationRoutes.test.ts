/**
 * The dashboard's pre-registration routes on a real server: strangers get 401; going live with a plan that was never
 * locked is refused (field "preregistration") unless the request states why, which the audit log keeps; the lock
 * route locks once and then says nothing changed; a justification is validated and stored; a study without a plan
 * goes live as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAdmin, startAdminTestServer, type AdminClient, type AdminTestServer } from '../support/adminTestServer';

let t: AdminTestServer;
let admin: AdminClient;
beforeAll(async () => {
  t = await startAdminTestServer();
  admin = await loginAdmin(t.url);
  for (const id of ['visualization', 'travel-planning']) await t.server.store.studies.setStatus(id, 'draft', Date.now());
}, 60_000);
afterAll(() => t?.close());

const body = async (res: Response) => (await res.json()) as { ok: boolean; data?: Record<string, unknown>; error?: { code: string; field?: string; message: string } };

describe('pre-registration routes', () => {
  it('answer 401 without the researcher session', async () => {
    expect((await fetch(`${t.url}/api/admin/studies/visualization/preregistration`)).status).toBe(401);
    expect((await fetch(`${t.url}/api/admin/studies/visualization/preregistration/lock`, { method: 'POST' })).status).toBe(401);
  });

  it('refuse going live with an unlocked plan unless a reason is stated, and audit the opt-out', async () => {
    const refused = await admin.post('/api/admin/studies/visualization/status', { status: 'live' });
    expect(refused.status).toBe(409);
    expect((await body(refused)).error).toMatchObject({ code: 'conflict', field: 'preregistration' });
    expect((await t.server.store.studies.get('visualization'))!.status).toBe('draft');

    const short = await admin.post('/api/admin/studies/visualization/status', { status: 'live', preregistration_opt_out: 'no' });
    expect(short.status).toBe(400);

    const reason = 'a pilot replication; the plan is locked for the main wave';
    const ok = await admin.post('/api/admin/studies/visualization/status', { status: 'live', preregistration_opt_out: reason });
    expect(ok.status).toBe(200);
    expect((await t.server.store.studies.get('visualization'))!.status).toBe('live');
    const audit = await t.server.store.audit.list({ studyId: 'visualization' });
    expect(audit.find((a) => a.action === 'preregistration_opt_out')?.details).toEqual({ reason });
  });

  it('let a study without a plan go live as before', async () => {
    const res = await admin.post('/api/admin/studies/travel-planning/status', { status: 'live' });
    expect(res.status).toBe(200);
  });

  it('lock once, then say nothing changed; show the status; take a justification', async () => {
    const first = await body(await admin.post('/api/admin/studies/visualization/preregistration/lock'));
    expect(first.data).toMatchObject({ outcome: 'locked', version: 1 });
    const second = await body(await admin.post('/api/admin/studies/visualization/preregistration/lock'));
    expect(second.data).toMatchObject({ outcome: 'unchanged', version: 1 });
    const status = await body(await admin.get('/api/admin/studies/visualization/preregistration'));
    expect(status.data).toMatchObject({ planFile: 'studies/visualization.prereg.yaml', planProblems: [], planChanged: false, deviations: [] });
    expect((status.data!.versions as unknown[]).length).toBe(1);

    await t.server.store.preregistrations.recordDeviation({ studyId: 'visualization', version: 1, kind: 'sample_beyond_stopping_rule', file: 'studies/visualization.prereg.yaml', field: 'stopping_rule.n_per_condition.baseline', message: 'condition "baseline" has 61 sessions, beyond the stopping rule\'s 60 per condition', detectedAt: Date.now() });
    const [dev] = await t.server.store.preregistrations.deviations('visualization');
    const empty = await admin.post(`/api/admin/studies/visualization/preregistration/deviations/${dev!.id}/justification`, { justification: '  ' });
    expect(empty.status).toBe(400);
    const other = await admin.post(`/api/admin/studies/travel-planning/preregistration/deviations/${dev!.id}/justification`, { justification: 'x' });
    expect(other.status).toBe(404);
    const saved = await admin.post(`/api/admin/studies/visualization/preregistration/deviations/${dev!.id}/justification`, { justification: 'two sessions started in the same second' });
    expect(saved.status).toBe(200);
    expect((await t.server.store.preregistrations.deviations('visualization'))[0]!.justification).toBe('two sessions started in the same second');
  });
});
