/**
 * Locking a plan and finding deviations, on both engines (real SQLite files and real PostgreSQL): a lock is
 * stored with its hashes and audited; locking again without a change stores nothing; an edited plan locks as
 * version 2 beside version 1; a plan naming what the study lacks is refused with file:line: field; an edited
 * system prompt is one deviation naming the field, recorded once however often the check runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../storage';
import { ConfigError } from '../studyFiles/studyConfig';
import { PreregistrationFile } from '../../common/preregistration';
import { openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import { copyVisualizationStudy, type StudyFilesCopy } from '../../tests/support/preregistrationFixture';
import { lockPreregistration, preregistrationJsonPath, recordDeviations } from '.';

const T0 = Date.UTC(2026, 10, 1, 9);

describe.each(STORE_ENGINES)('pre-registration lock (%s)', (engine) => {
  let store: Store;
  let files: StudyFilesCopy;
  const stores: Store[] = [];
  beforeEach(async () => {
    store = await openTestStore(engine, 'prereg lock');
    stores.push(store);
    files = copyVisualizationStudy();
  });
  afterEach(() => files.remove());
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  const lock = (now: number, outFile: string | null = null) => {
    const config = files.load();
    const study = config.studies.get('visualization')!;
    return lockPreregistration({ store, study, survey: config.surveys.get(study.survey), actor: 'researcher', now, outFile });
  };

  it('stores the version with both hashes and the time, audits it and writes preregistration.json; a second lock without a change does nothing', async () => {
    const out = preregistrationJsonPath(path.dirname(files.studiesDir), 'visualization');
    const first = await lock(T0, out);
    expect(first).toMatchObject({ outcome: 'locked', version: 1 });
    expect(first.planHash).toMatch(/^[0-9a-f]{64}$/);
    const row = (await store.preregistrations.latest('visualization'))!;
    expect(row).toMatchObject({ version: 1, lockedAt: T0, lockedBy: 'researcher', planHash: first.planHash, studyHash: first.studyHash });
    expect(row.document.fingerprint.map((e) => `${e.file} ${e.field}`)).toContain('studies/visualization.yaml conditions.1.system_prompt');
    const written = PreregistrationFile.parse(JSON.parse(fs.readFileSync(out, 'utf8')));
    expect(written.versions.map((v) => v.version)).toEqual([1]);
    expect(written.versions[0]!.locked_at).toBe(new Date(T0).toISOString());

    const again = await lock(T0 + 1000, null);
    expect(again.outcome).toBe('unchanged');
    expect(again.message).toMatch(/already locked as version 1.*nothing was stored/);
    expect((await store.preregistrations.versions('visualization')).length).toBe(1);
    const audits = (await store.audit.list({ studyId: 'visualization' })).filter((a) => a.action === 'preregistration_lock');
    expect(audits).toHaveLength(1);
  });

  it('keeps a second plan version beside the first', async () => {
    await lock(T0);
    files.edit(files.planFile, 'n_per_condition: 60\n  rationale', 'n_per_condition: 80\n  rationale');
    const second = await lock(T0 + 5000);
    expect(second).toMatchObject({ outcome: 'locked', version: 2 });
    expect(second.message).toMatch(/version 1 stays on record/);
    const versions = await store.preregistrations.versions('visualization');
    expect(versions.map((v) => [v.version, v.document.plan.sample.n_per_condition])).toEqual([
      [1, 60],
      [2, 80],
    ]);
    expect(versions[0]!.planHash).not.toBe(versions[1]!.planHash);
  });

  it('refuses a plan naming a condition, Likert item or rubric the study does not have, with file:line: field', async () => {
    files.edit(files.planFile, 'a: clarify-first\n    b: baseline', 'a: clarify-later\n    b: baseline');
    files.edit(files.planFile, 'outcome: likert:ai_usefulness', 'outcome: likert:joy');
    files.edit(files.planFile, 'rubric: visualization-analysis }', 'rubric: travel-planning }');
    const text = fs.readFileSync(files.planFile, 'utf8').split('\n');
    const lineOf = (s: string) => text.findIndex((l) => l.includes(s)) + 1;
    const err = await lock(T0).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as ConfigError).problems.map((p) => `${path.basename(p.file)}:${p.line}: ${p.field}: ${p.message}`);
    expect(lines).toEqual([
      `visualization.prereg.yaml:${lineOf('a: clarify-later')}: primary.comparison.a: the study "visualization" has no condition "clarify-later" (it has: baseline, clarify-first)`,
      `visualization.prereg.yaml:${lineOf('likert:joy')}: secondary.0.outcome: the survey "visualization-post" has no Likert item "joy" (it has: confidence, ai_usefulness, speed, satisfaction)`,
      `visualization.prereg.yaml:${lineOf('rubric: travel-planning')}: analysis.judge.rubric: no task of the study "visualization" uses the rubric "travel-planning" (they use: visualization-analysis)`,
    ]);
    expect(await store.preregistrations.latest('visualization')).toBeUndefined();
  });

  it('refuses an unknown outcome by the schema, naming its line', async () => {
    files.edit(files.planFile, 'outcome: pz', 'outcome: happiness');
    const err = (await lock(T0).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/visualization\.prereg\.yaml:\d+: primary\.outcome: must be quality, cost, pz or likert:<survey item id>/);
  });

  it('records an edited system prompt as one deviation naming the field, once', async () => {
    await lock(T0);
    files.edit(files.studyFile, 'ask one or\n      two short clarifying questions', 'ask three\n      short clarifying questions');
    const check = (now: number) => {
      const config = files.load();
      const study = config.studies.get('visualization')!;
      return recordDeviations(store, { study, survey: config.surveys.get(study.survey), now });
    };
    const first = await check(T0 + 10_000);
    expect(first.recorded.map((d) => `${d.file}: ${d.message}`)).toEqual(['studies/visualization.yaml: conditions.1.system_prompt changed after the lock']);
    expect((await check(T0 + 20_000)).recorded).toEqual([]);
    const all = await store.preregistrations.deviations('visualization');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ kind: 'changed_after_lock', field: 'conditions.1.system_prompt', detectedAt: T0 + 10_000, justification: null });
  });

  it('records a sample beyond the stopping rule per condition, and sessions after the stop date, once each', async () => {
    const config = files.load();
    const study = config.studies.get('visualization')!;
    await store.studies.upsertLoaded(study.id, study.title, study.definitionHash, 'live', T0);
    const addSession = async (id: string, condition: string, createdAt: number) => {
      await store.sessions.insert({ id, studyId: study.id, taskId: 'study-habits', conditionId: condition, isPilot: false, createdAt });
      await store.sessions.update(id, { consentedAt: createdAt + 1, step: 'instructions' }, createdAt + 1);
    };
    files.edit(files.planFile, 'stopping_rule:\n  n_per_condition: 60', 'stopping_rule:\n  n_per_condition: 1');
    await lock(T0);
    await addSession('s1', 'baseline', T0 + 1);
    const check = (now: number) => {
      const c = files.load();
      const st = c.studies.get('visualization')!;
      return recordDeviations(store, { study: st, survey: c.surveys.get(st.survey), now });
    };
    expect((await check(T0 + 2)).recorded).toEqual([]);
    await addSession('s2', 'baseline', T0 + 3);
    await addSession('s3', 'baseline', T0 + 4);
    expect((await check(T0 + 5)).recorded.map((d) => `${d.field}: ${d.message}`)).toEqual([
      'stopping_rule.n_per_condition.baseline: condition "baseline" has 3 sessions, beyond the stopping rule\'s 1 per condition',
    ]);
    expect((await check(T0 + 6)).recorded).toEqual([]);

    // A stop date instead: the day of the lock; a session the next day is after it.
    files.edit(files.planFile, 'stopping_rule:\n  n_per_condition: 1', 'stopping_rule:\n  date: 2026-11-01');
    expect((await lock(T0 + 10)).version).toBe(2);
    expect((await check(T0 + 11)).recorded).toEqual([]);
    await addSession('s4', 'clarify-first', Date.UTC(2026, 10, 2, 8));
    expect((await check(T0 + 12)).recorded.map((d) => `${d.kind} ${d.field}: ${d.message}`)).toEqual([
      'session_after_stop_date stopping_rule.date: 1 session collected after the stop date 2026-11-01',
    ]);
  });
});
