/**
 * The join-time stopping-rule check's lock cache, on both engines (real SQLite files, real PostgreSQL): the locked
 * version is read once and kept for LOCK_CACHE_MS, so a lock stored through another store object (another node) is
 * seen only after that time, while a lock through the same store applies to the next join at once; pilot sessions
 * are not checked. The join itself is tested through a real server in tests/integration/preregistrationStoppingRule.test.ts.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../storage';
import { createTestStoreTarget, STORE_ENGINES } from '../../tests/support/testStores';
import { copyVisualizationStudy, type StudyFilesCopy } from '../../tests/support/preregistrationFixture';
import { checkStoppingRuleAtJoin, LOCK_CACHE_MS, lockPreregistration } from '.';

const T0 = Date.UTC(2026, 10, 1, 9);

describe.each(STORE_ENGINES)('the join-time stopping-rule check (%s)', (engine) => {
  let node1: Store;
  let node2: Store;
  let files: StudyFilesCopy;
  const opened: Store[] = [];
  beforeEach(async () => {
    const target = await createTestStoreTarget(engine, 'prereg join check');
    node1 = await openStore(target);
    node2 = await openStore(target);
    opened.push(node1, node2);
    files = copyVisualizationStudy();
    files.edit(files.planFile, 'stopping_rule:\n  n_per_condition: 60', 'stopping_rule:\n  n_per_condition: 1');
    const study = files.load().studies.get('visualization')!;
    await node1.studies.upsertLoaded(study.id, study.title, study.definitionHash, 'live', T0);
    // One consented non-pilot session in each condition: the rule's n is reached in both.
    for (const [id, conditionId] of [['s1', 'baseline'], ['s2', 'clarify-first']] as const) {
      await node1.sessions.insert({ id, studyId: study.id, taskId: study.tasks[0]!.id, conditionId, isPilot: false, createdAt: T0 });
      await node1.sessions.update(id, { step: 'instructions', consentedAt: T0 + 1 }, T0 + 1);
    }
  });
  afterEach(() => files.remove());
  afterAll(async () => {
    for (const s of opened) await s.close();
  });

  const lockThrough = async (store: Store, now: number) => {
    const config = files.load();
    const study = config.studies.get('visualization')!;
    return lockPreregistration({ store, study, survey: config.surveys.get(study.survey), actor: 'researcher', now, outFile: null });
  };
  const joinOn = (store: Store, conditionId: string, now: number, isPilot = false) =>
    store.transaction((tx) => checkStoppingRuleAtJoin(store, tx, { studyId: 'visualization', conditionId, isPilot, now }));

  it('keeps the lock it read for LOCK_CACHE_MS; a lock through the same store applies at once', async () => {
    // Not locked yet: nothing to check, and "no lock" is what node 1 now holds.
    expect(await joinOn(node1, 'baseline', T0 + 10)).toBeNull();
    // Another node locks version 1: node 1 sees it only once its cached answer is older than LOCK_CACHE_MS.
    await lockThrough(node2, T0 + 20);
    expect(await joinOn(node1, 'baseline', T0 + 10 + LOCK_CACHE_MS - 1)).toBeNull();
    expect(await joinOn(node1, 'baseline', T0 + 10 + LOCK_CACHE_MS)).toMatchObject({ version: 1, field: 'stopping_rule.n_per_condition.baseline' });
    // A pilot session is not part of the sample.
    expect(await joinOn(node1, 'clarify-first', T0 + 10 + LOCK_CACHE_MS + 1, true)).toBeNull();

    // A new version locked through node 1 itself applies to node 1's next join.
    files.edit(files.planFile, 'n_per_condition: 60\n  rationale', 'n_per_condition: 61\n  rationale');
    const now = T0 + 10 + LOCK_CACHE_MS + 2;
    expect((await lockThrough(node1, now)).version).toBe(2);
    expect(await joinOn(node1, 'clarify-first', now + 1)).toMatchObject({ version: 2, field: 'stopping_rule.n_per_condition.clarify-first' });
    expect((await node1.preregistrations.deviations('visualization')).map((d) => `${d.version} ${d.field}`)).toEqual([
      '1 stopping_rule.n_per_condition.baseline',
      '2 stopping_rule.n_per_condition.clarify-first',
    ]);
  });
});
