/**
 * `analyze --prereg` stores its own deviations (issue 24): a run whose λ, bootstrap replicates and judge model differ
 * from the locked plan records one deviation per differing setting, with the run's time, in the study's store (the
 * table and audit the runtime uses; real SQLite files and real PostgreSQL), and a second identical run records
 * nothing new. Without a reachable store, or with a store that does not hold the dataset's locked version, they go
 * to the dataset's deviations.analysis.csv, once, and the report says they are not in the study's store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../lib/storage';
import { lockPreregistration, preregistrationFile } from '../../../lib/preregistration';
import { createTestStoreTarget, STORE_ENGINES } from '../../../tests/support/testStores';
import { copyVisualizationStudy, type StudyFilesCopy } from '../../../tests/support/preregistrationFixture';
import { writePlantedDataset } from '../../../tests/support/plantedPreregDataset';
import { runAnalysis } from '../runAnalysis';
import { DEFAULT_OPTIONS } from '../summary';
import type { PreregisteredSection } from './preregisteredSection';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-prereg-run-deviations-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const T_LOCK = Date.UTC(2026, 10, 1, 9);
const T_RUN = Date.UTC(2026, 11, 1, 10);
// The plan (studies/visualization.prereg.yaml) says λ 0.5, 2000 replicates, judge gpt-4o with 3 samples.
const options = { ...DEFAULT_OPTIONS, lambda: 0.3, bootstrapReplicates: 50 };
const EXPECTED_FIELDS = ['analysis.bootstrap.replicates', 'analysis.judge.model', 'analysis.lambda'];

/** The planted dataset with the store's own preregistration.json and judge samples from another model (k = 3). */
async function datasetOf(store: Store | null, name: string): Promise<string> {
  const dir = path.join(root, name);
  writePlantedDataset(dir);
  if (store) fs.writeFileSync(path.join(dir, 'preregistration.json'), JSON.stringify(await preregistrationFile(store, 'visualization'), null, 2));
  const rows = ['s007', 's008'].flatMap((s) => [0, 1, 2].map((k) => `${s},visualization-analysis,h,gpt-4o-mini-2024-07-18,${k},4,true,false,1,`));
  fs.writeFileSync(path.join(dir, 'judgements.csv'), `session_id,rubric_id,rubric_hash,model,sample,score,parse_ok,cached,artifact_version,images\n${rows.join('\n')}\n`);
  return dir;
}

/** The report's text with its entities decoded (escapeHtml writes ' as &#39;). */
const reportText = (out: string) => fs.readFileSync(path.join(out, 'report.html'), 'utf8').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
const summaryOf = (out: string) => (JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as { preregistered: PreregisteredSection }).preregistered;

describe.each(STORE_ENGINES)('analyze --prereg keeps its deviations (%s)', (engine) => {
  let store: Store;
  let target: { dataDir: string; databaseUrl?: string | undefined };
  let files: StudyFilesCopy;
  beforeEach(async () => {
    target = await createTestStoreTarget(engine, 'prereg run deviations');
    store = await openStore(target);
    files = copyVisualizationStudy();
    const config = files.load();
    const study = config.studies.get('visualization')!;
    await store.studies.upsertLoaded(study.id, study.title, study.definitionHash, 'live', 1);
    await lockPreregistration({ store, study, survey: config.surveys.get(study.survey), actor: 'researcher', now: T_LOCK, outFile: null });
  });
  afterEach(async () => {
    await store.close();
    files.remove();
  });

  it('records one deviation per differing setting in the study store, with its time, and nothing new on a second identical run', async () => {
    const dataset = await datasetOf(store, `store-${engine}`);
    const out = path.join(dataset, 'out');
    await runAnalysis(dataset, out, options, { prereg: true, deviations: { store: target, actor: 'cli:researcher', now: T_RUN } });
    const stored = await store.preregistrations.deviations('visualization');
    expect(stored.map((d) => d.field).sort()).toEqual(EXPECTED_FIELDS);
    const planFile = (await store.preregistrations.latest('visualization'))!.document.plan_file;
    expect(planFile).toMatch(/studies\/visualization\.prereg\.yaml$/);
    for (const d of stored) expect(d).toMatchObject({ version: 1, kind: 'analysis_settings', file: planFile, detectedAt: T_RUN, justification: null });
    expect(stored.find((d) => d.field === 'analysis.judge.model')!.message).toBe("the dataset's scores come from analysis.judge.model = gpt-4o-mini-2024-07-18 (judgements.csv), the plan gpt-4o");
    const audited = (await store.audit.list({ studyId: 'visualization' })).filter((a) => a.action === 'preregistration_deviation');
    expect(audited.map((a) => a.actor)).toEqual(['cli:researcher', 'cli:researcher', 'cli:researcher']);
    expect(summaryOf(out).run_deviations).toMatchObject({ recorded_in: 'store', new: 3, already_recorded: 0, reason: null });
    expect(reportText(out)).toContain("This run's deviations are recorded in the study's store");
    expect(fs.existsSync(path.join(dataset, 'deviations.analysis.csv'))).toBe(false);

    await runAnalysis(dataset, path.join(dataset, 'out2'), options, { prereg: true, deviations: { store: target, actor: 'cli:researcher', now: T_RUN + 60_000 } });
    const again = await store.preregistrations.deviations('visualization');
    expect(again.map((d) => [d.field, d.detectedAt])).toEqual(stored.map((d) => [d.field, d.detectedAt]));
    expect(summaryOf(path.join(dataset, 'out2')).run_deviations).toMatchObject({ recorded_in: 'store', new: 0, already_recorded: 3 });
  }, 60_000);

  it('writes them to deviations.analysis.csv, once, when the store does not hold the dataset\'s locked version', async () => {
    const dataset = await datasetOf(store, `other-${engine}`);
    const other = await createTestStoreTarget(engine, 'prereg run deviations, another database');
    const otherStore = await openStore(other);
    await otherStore.close();
    const warnings: string[] = [];
    await runAnalysis(dataset, path.join(dataset, 'out'), options, { prereg: true, warn: (w) => warnings.push(w), deviations: { store: other, now: T_RUN } });
    const section = summaryOf(path.join(dataset, 'out'));
    expect(section.run_deviations).toMatchObject({ recorded_in: 'file', new: 3 });
    expect(section.run_deviations!.reason).toMatch(/has no locked plan of "visualization"/);
    expect(warnings.some((w) => w.includes("not recorded in the study's store"))).toBe(true);
    expect(await store.preregistrations.deviations('visualization')).toEqual([]);
  }, 60_000);
});

describe('analyze --prereg without a store', () => {
  it('writes deviations.analysis.csv with deviations.csv\'s columns, says so in the report, and adds nothing on a second run', async () => {
    const dataset = await datasetOf(null, 'no-store');
    const empty = fs.mkdtempSync(path.join(root, 'no-data-'));
    await runAnalysis(dataset, path.join(dataset, 'out'), options, { prereg: true, deviations: { store: { dataDir: empty }, now: T_RUN } });
    const file = path.join(dataset, 'deviations.analysis.csv');
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe('time,kind,file,field,justification,version,message,justified_at,detected_at');
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.field).sort()).toEqual(EXPECTED_FIELDS);
    for (const r of rows) expect(r).toMatchObject({ time: new Date(T_RUN).toISOString(), detected_at: new Date(T_RUN).toISOString(), version: '1', kind: 'analysis_settings', justification: '' });
    const html = reportText(path.join(dataset, 'out'));
    expect(html).toContain("This run's deviations were not recorded in the study's store (no database at");
    expect(html).toContain('deviations.analysis.csv: 3 new, 0 already there.');

    await runAnalysis(dataset, path.join(dataset, 'out2'), options, { prereg: true, deviations: { store: { dataDir: empty }, now: T_RUN + 1 } });
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(summaryOf(path.join(dataset, 'out2')).run_deviations).toMatchObject({ recorded_in: 'file', new: 0, already_recorded: 3 });
  }, 60_000);
});
