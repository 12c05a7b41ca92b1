/**
 * The preregistrations repository on both engines (real SQLite files, real PostgreSQL): versions go 1, 2, … and
 * a version taken twice or skipped is refused; versions list oldest first; a deviation is recorded once per
 * (version, kind, file, field); a justification is set on the study's own deviation only; the session counts
 * that the stopping rules read leave pilot and unconsented sessions out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, openTestStore } from '../../tests/support/testStores';
import type { Store } from '.';
import type { PreregistrationRow } from './contract/preregistrations';
import type { LockedPlan } from '../../common/preregistration';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const plan = {
  title: 'p',
  hypotheses: [{ id: 'h1', text: 'a beats b' }],
  primary: { hypothesis: 'h1', outcome: 'quality', comparison: { a: 'a', b: 'b', direction: 'greater', test: 'mann_whitney', alpha: 0.05 } },
  secondary: [],
  sample: { n_per_condition: 2, rationale: 'r' },
  stopping_rule: { n_per_condition: 2 },
  exclusions: { pilot: true, integrity_flags: [], failed_attention_check: false, unscored: true },
  analysis: { lambda: 0.5, cost: 'weighted', bootstrap: { replicates: 10, seed: 1 }, judge: { model: 'm', samples: 1, rubric: 'r' } },
} satisfies LockedPlan['plan'];

const row = (version: number, at: number): PreregistrationRow => ({
  studyId: 'st',
  version,
  planHash: `plan${version}`,
  studyHash: `study${version}`,
  lockedAt: at,
  lockedBy: 'researcher',
  document: {
    study_id: 'st',
    version,
    locked_at: new Date(at).toISOString(),
    locked_at_ms: at,
    locked_by: 'researcher',
    plan_file: 'studies/st.prereg.yaml',
    plan_hash: `plan${version}`,
    study_hash: `study${version}`,
    plan,
    fingerprint: [{ file: 'studies/st.yaml', field: 'title', hash: 'h' }],
  },
});

describe.each(STORE_ENGINES)('preregistrations repository (%s)', (engine) => {
  async function store(): Promise<Store> {
    const s = await openTestStore(engine, 'preregistrations');
    stores.push(s);
    await s.studies.upsertLoaded('st', 'A study', 'hash', 'live', 1);
    return s;
  }

  it('numbers versions 1, 2, … and refuses a version taken twice or skipped', async () => {
    const s = await store();
    expect(await s.preregistrations.latest('st')).toBeUndefined();
    expect(await s.preregistrations.insertVersion(row(2, 10))).toBe(false);
    expect(await s.preregistrations.insertVersion(row(1, 10))).toBe(true);
    expect(await s.preregistrations.insertVersion(row(1, 11))).toBe(false);
    expect(await s.preregistrations.insertVersion(row(2, 20))).toBe(true);
    expect((await s.preregistrations.versions('st')).map((v) => [v.version, v.lockedAt, v.planHash])).toEqual([
      [1, 10, 'plan1'],
      [2, 20, 'plan2'],
    ]);
    expect((await s.preregistrations.latest('st'))!.document).toEqual(row(2, 20).document);
    expect(await s.preregistrations.versions('other')).toEqual([]);
  });

  it('records a deviation once, lists them oldest first, and justifies only the study’s own', async () => {
    const s = await store();
    await s.preregistrations.insertVersion(row(1, 10));
    const d = { studyId: 'st', version: 1, kind: 'changed_after_lock' as const, file: 'studies/st.yaml', field: 'conditions.0.model', message: 'conditions.0.model changed after the lock', detectedAt: 30 };
    expect(await s.preregistrations.recordDeviation(d)).toBe(true);
    expect(await s.preregistrations.recordDeviation({ ...d, detectedAt: 40 })).toBe(false);
    expect(await s.preregistrations.recordDeviation({ ...d, field: 'title', message: 'title changed after the lock', detectedAt: 20 })).toBe(true);
    const list = await s.preregistrations.deviations('st');
    expect(list.map((x) => [x.field, x.detectedAt])).toEqual([
      ['title', 20],
      ['conditions.0.model', 30],
    ]);
    const target = list[1]!;
    expect(await s.preregistrations.justify('other', target.id, 'no', 'researcher', 50)).toBe(false);
    expect(await s.preregistrations.justify('st', target.id, 'the model was retired by its provider', 'researcher', 50)).toBe(true);
    expect((await s.preregistrations.deviations('st'))[1]).toMatchObject({ justification: 'the model was retired by its provider', justifiedAt: 50, justifiedBy: 'researcher' });
  });

  it('counts consented non-pilot sessions per condition and non-pilot sessions after a time', async () => {
    const s = await store();
    const add = async (id: string, condition: string, createdAt: number, opts: { pilot?: boolean; consented?: boolean } = {}) => {
      await s.sessions.insert({ id, studyId: 'st', taskId: 't', conditionId: condition, isPilot: opts.pilot ?? false, createdAt });
      if (opts.consented ?? true) await s.sessions.update(id, { consentedAt: createdAt + 1, step: 'instructions' }, createdAt + 1);
    };
    await add('s1', 'a', 100);
    await add('s2', 'a', 200);
    await add('s3', 'b', 300);
    await add('s4', 'b', 400, { pilot: true });
    await add('s5', 'b', 500, { consented: false });
    expect(await s.preregistrations.countSessionsByCondition('st')).toEqual({ a: 2, b: 1 });
    expect(await s.preregistrations.countSessionsCreatedAfter('st', 250)).toBe(2);
    expect(await s.preregistrations.countSessionsCreatedAfter('st', 500)).toBe(0);
  });
});
