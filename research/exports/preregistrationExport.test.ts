/**
 * The dataset carries the locked plan and its deviations (issue 24): preregistration.json with every version,
 * deviations.csv with the justification, both listed in the manifest with their sha256 and described in the codebook;
 * deviations.csv is a table resource of datapackage.json. On both engines; a study never locked exports an empty record, not a missing file.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../lib/storage';
import { createTestStoreTarget, STORE_ENGINES } from '../../tests/support/testStores';
import { copyVisualizationStudy, type StudyFilesCopy } from '../../tests/support/preregistrationFixture';
import { lockPreregistration, recordDeviations } from '../../lib/preregistration';
import { DEVIATION_CSV_COLUMNS, PreregistrationFile } from '../../common/preregistration';
import { exportStudy } from './exportStudy';

describe.each(STORE_ENGINES)('pre-registration in the export (%s)', (engine) => {
  let store: Store;
  let dataDir: string;
  let files: StudyFilesCopy;
  beforeEach(async () => {
    const target = await createTestStoreTarget(engine, 'prereg export');
    dataDir = target.dataDir;
    store = await openStore(target);
    files = copyVisualizationStudy();
    const config = files.load();
    const study = config.studies.get('visualization')!;
    await store.studies.upsertLoaded(study.id, study.title, study.definitionHash, 'live', 1);
  });
  afterEach(async () => {
    await store.close();
    files.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const lockAndCheck = async (now: number) => {
    const config = files.load();
    const study = config.studies.get('visualization')!;
    const survey = config.surveys.get(study.survey);
    await lockPreregistration({ store, study, survey, actor: 'researcher', now, outFile: null });
    await recordDeviations(store, { study, survey, now: now + 1 });
  };

  it('writes preregistration.json and deviations.csv, listed in the manifest, codebook and datapackage', async () => {
    await lockAndCheck(Date.UTC(2026, 10, 1));
    files.edit(files.planFile, 'n_per_condition: 60\n  rationale', 'n_per_condition: 70\n  rationale');
    await lockAndCheck(Date.UTC(2026, 10, 2));
    files.edit(files.studyFile, /model: gpt-4o-mini\n    temperature: 0.7\n    max_tokens: 1024\n    system_prompt: \|\n      You are a helpful assistant for data analysis. Before/, 'model: gpt-4o\n    temperature: 0.7\n    max_tokens: 1024\n    system_prompt: |\n      You are a helpful assistant for data analysis. Before');
    // A changed model is a changed study: locking again stores version 3.
    await lockAndCheck(Date.UTC(2026, 10, 3));
    const versions = await store.preregistrations.versions('visualization');
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
    await store.preregistrations.recordDeviation({ studyId: 'visualization', version: 2, kind: 'changed_after_lock', file: 'studies/visualization.yaml', field: 'conditions.1.model', message: 'conditions.1.model changed after the lock', detectedAt: Date.UTC(2026, 10, 2, 12) });
    const [dev] = await store.preregistrations.deviations('visualization');
    await store.preregistrations.justify('visualization', dev!.id, 'the provider retired gpt-4o-mini', 'researcher', Date.UTC(2026, 10, 2, 13));

    const out = join(dataDir, 'out');
    const { manifest } = await exportStudy({ store, dataDir, studyId: 'visualization', outDir: out, includePilot: false, includeIdentities: false });
    const prereg = PreregistrationFile.parse(JSON.parse(readFileSync(join(out, 'preregistration.json'), 'utf8')));
    expect(prereg.current_version).toBe(3);
    expect(prereg.versions.map((v) => [v.version, v.plan.sample.n_per_condition, v.locked_at])).toEqual([
      [1, 60, '2026-11-01T00:00:00.000Z'],
      [2, 70, '2026-11-02T00:00:00.000Z'],
      [3, 70, '2026-11-03T00:00:00.000Z'],
    ]);
    const rows = parse(readFileSync(join(out, 'deviations.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([
      {
        time: '2026-11-02T12:00:00.000Z',
        kind: 'changed_after_lock',
        file: 'studies/visualization.yaml',
        field: 'conditions.1.model',
        justification: 'the provider retired gpt-4o-mini',
        version: '2',
        message: 'conditions.1.model changed after the lock',
        justified_at: '2026-11-02T13:00:00.000Z',
        detected_at: '2026-11-02T12:00:00.000Z',
      },
    ]);
    const sha = (f: string) => createHash('sha256').update(readFileSync(join(out, f))).digest('hex');
    for (const path of ['preregistration.json', 'deviations.csv']) expect(manifest.files.find((f) => f.path === path)?.sha256).toBe(sha(path));
    expect(manifest.files.find((f) => f.path === 'deviations.csv')?.rows).toBe(1);
    const pkg = JSON.parse(readFileSync(join(out, 'datapackage.json'), 'utf8')) as { resources: { name: string; hash?: string; schema?: { fields: { name: string }[] } }[] };
    // datapackage.json holds the tables (its readers expect a schema per resource): deviations.csv, not the JSON record.
    expect(pkg.resources.find((r) => r.name === 'preregistration')).toBeUndefined();
    expect(pkg.resources.find((r) => r.name === 'deviations')?.schema?.fields.map((f) => f.name)).toEqual([...DEVIATION_CSV_COLUMNS]);
    const codebook = readFileSync(join(out, 'codebook.md'), 'utf8');
    expect(codebook).toContain('## `preregistration.json`');
    expect(codebook).toContain('## `deviations.csv`');
  });

  it('reads the plan and its deviations in the export snapshot: what is stored after the snapshot opened is not in this dataset', async () => {
    await lockAndCheck(Date.UTC(2026, 10, 1));
    // The real store, whose snapshot is followed at once by a new lock and a new deviation (written while the export reads).
    const later = async () => {
      files.edit(files.planFile, 'n_per_condition: 60\n  rationale', 'n_per_condition: 70\n  rationale');
      await lockAndCheck(Date.UTC(2026, 10, 2));
      await store.preregistrations.recordDeviation({ studyId: 'visualization', version: 2, kind: 'changed_after_lock', file: 'studies/visualization.yaml', field: 'title', message: 'title changed after the lock', detectedAt: Date.UTC(2026, 10, 2, 1) });
    };
    const writesAfterSnapshot = new Proxy(store, {
      get(target, key) {
        if (key === 'openExportSnapshot')
          return async () => {
            const snapshot = await target.openExportSnapshot();
            await later();
            return snapshot;
          };
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const out = join(dataDir, 'out-snapshot');
    await exportStudy({ store: writesAfterSnapshot, dataDir, studyId: 'visualization', outDir: out, includePilot: false, includeIdentities: false });
    expect((await store.preregistrations.versions('visualization')).map((v) => v.version)).toEqual([1, 2]);
    expect((await store.preregistrations.deviations('visualization')).map((d) => d.field)).toEqual(['title']);
    const prereg = PreregistrationFile.parse(JSON.parse(readFileSync(join(out, 'preregistration.json'), 'utf8')));
    expect(prereg.versions.map((v) => v.version)).toEqual([1]);
    expect(prereg.current_version).toBe(1);
    expect(readFileSync(join(out, 'deviations.csv'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('exports an empty record for a study never locked', async () => {
    const out = join(dataDir, 'out-empty');
    await exportStudy({ store, dataDir, studyId: 'visualization', outDir: out, includePilot: false, includeIdentities: false });
    expect(JSON.parse(readFileSync(join(out, 'preregistration.json'), 'utf8'))).toEqual({ schema_version: 1, study_id: 'visualization', current_version: null, versions: [] });
    expect(readFileSync(join(out, 'deviations.csv'), 'utf8').trim()).toBe('time,kind,file,field,justification,version,message,justified_at,detected_at');
  });
});

/**
 * deviations.csv against the dataset contract (design.md, "Dataset layout (contract)": `preregistration.json`,
 * `deviations.csv` | locked plan; deviation | plan, plan and study hashes, lock time, versions; **time, kind, file,
 * field, justification**): the contract's columns first, in its order; every extra column after them and in the codebook.
 */
describe('deviations.csv and the dataset contract', () => {
  const CONTRACT = ['time', 'kind', 'file', 'field', 'justification'];

  it('has the contract columns first, in order, and only documented extra columns after them', async () => {
    const { DEVIATION_COLUMNS, datasetFiles } = await import('./columns');
    const { renderCodebook } = await import('./codebook');
    const names = DEVIATION_COLUMNS.map((c) => c.name);
    expect(names.slice(0, CONTRACT.length)).toEqual(CONTRACT);
    expect(names).toEqual([...DEVIATION_CSV_COLUMNS]);
    const codebook = renderCodebook(datasetFiles({ likertItems: [], includeIdentities: false }), { studyId: 'visualization', createdAt: '2026-12-01T00:00:00.000Z' });
    const section = codebook.slice(codebook.indexOf('## `deviations.csv`'));
    const table = section.slice(0, section.indexOf('\n## ', 4) > 0 ? section.indexOf('\n## ', 4) : undefined);
    for (const extra of names.slice(CONTRACT.length)) expect(table, extra).toMatch(new RegExp(`\\|\\s*\`?${extra}\`?\\s*\\|`));
    for (const c of DEVIATION_COLUMNS) expect(c.description.length, c.name).toBeGreaterThan(10);
  });
});
