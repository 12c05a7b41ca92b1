/**
 * Dashboard runs as store-backed jobs (server/admin/runs.ts over admin_jobs): a run started on one node is
 * refused on another while it runs and its outcome is visible from every node; a run whose node died is
 * marked failed (abandoned) by the sweep, and a node restarting under the same name marks its own earlier
 * runs at once. Two AdminRuns over two stores on one database are two nodes (PostgreSQL); SQLite is one node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, createTestStoreTarget } from '../support/testStores';
import { openStore, type Store, type StoreEngine } from '../../lib/storage';
import { loadConfig } from '../../lib/studyFiles/studyConfig';
import { createLogger } from '../../lib/logger';
import type { RunProgress } from '../../common/admin';
import { AdminRuns } from '../../server/admin/runs';
import { withClusterPseudonymKey } from '../support/clusterKey';
import { researchTools } from '../../wiring/researchTools';
import type { ResearchTools } from '../../server/admin/researchTools';

const ROOT = path.resolve(import.meta.dirname, '../..');
const config = loadConfig({ studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') });
const log = createLogger('error');

const open: Array<{ close(): Promise<void> }> = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The real research tools, with the analysis held until `release()`: a test can look at a run while it surely runs. */
function heldAnalysis(): { tools: ResearchTools; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { tools: { ...researchTools, analyseDataset: (...args) => held.then(() => researchTools.analyseDataset(...args)) }, release };
}

/** A node's AdminRuns over its own store on the shared database, with its own data folder. */
async function nodeRuns(
  engine: StoreEngine,
  target: { dataDir: string; databaseUrl: string | undefined },
  name: string,
  incarnation: string,
  now = Date.now,
  tools: ResearchTools = researchTools,
) {
  const store: Store = await openStore(target);
  open.push(store);
  const dataDir = withClusterPseudonymKey(fs.mkdtempSync(path.join(target.dataDir, `${name}-`)));
  dirs.push(dataDir);
  const emitted: RunProgress[] = [];
  const runs = new AdminRuns(
    { store, config, dataDir, log, now, env: {}, tools, owner: { node: name, incarnation }, timings: { heartbeatMs: 100, staleMs: 1_000, sweepMs: 0 } },
    (p) => emitted.push(p),
  );
  open.push(runs);
  return { store, runs, emitted, engine };
}

describe.each(STORE_ENGINES)('dashboard runs as jobs (%s)', (engine) => {
  it('at start removes the intermediate datasets of interrupted analyses, but not one whose analysis still runs (a shared DATA_DIR)', async () => {
    const target = await createTestStoreTarget(engine, 'runs datasets');
    const store: Store = await openStore(target);
    open.push(store);
    const dataDir = fs.mkdtempSync(path.join(target.dataDir, 'shared-'));
    dirs.push(dataDir);
    const analysisDir = path.join(dataDir, 'admin-analysis');
    const interrupted = path.join(analysisDir, 'travel-planning.dataset-1000');
    const running = path.join(analysisDir, 'visualization.dataset-2000');
    for (const d of [interrupted, running]) fs.mkdirSync(d, { recursive: true });
    // Another node is analysing `visualization` right now (its job row is fresh).
    expect(await store.adminJobs.claim({ id: 'analysis-elsewhere', kind: 'analysis', studyId: 'visualization', actor: 'r', owner: { node: 'node-z', incarnation: 'z1' }, now: Date.now(), message: 'analysing' })).toBe(true);
    const runs = new AdminRuns({ store, config, dataDir, log, now: Date.now, env: {}, tools: researchTools, owner: { node: 'node-a', incarnation: 'a1' }, timings: { heartbeatMs: 100, staleMs: 60_000, sweepMs: 0 } }, () => {});
    open.push(runs);
    await runs.markAbandoned();
    expect(fs.existsSync(interrupted)).toBe(false);
    expect(fs.existsSync(running)).toBe(true);
  });

  it('run once: refused on another node while running, the outcome visible from every node', async () => {
    const target = await createTestStoreTarget(engine, 'runs once');
    // An empty study's analysis can end before another node looks: it is held until the checks below are done.
    const analysis = heldAnalysis();
    const a = await nodeRuns(engine, target, 'node-a', 'a1', Date.now, analysis.tools);
    // SQLite serves one node: the second "node" is the same store (a second AdminRuns of it).
    const b = engine === 'postgres' ? await nodeRuns(engine, target, 'node-b', 'b1') : a;
    await a.store.studies.upsertLoaded('visualization', 'Vis', 'h', 'live', 1);

    const first = await a.runs.start({ kind: 'analysis' }, 'visualization', 'researcher');
    expect(first.started).toBe(true);
    expect((await b.runs.status('visualization')).analysis).toMatchObject({ state: 'running' });
    const second = await b.runs.start({ kind: 'analysis' }, 'visualization', 'researcher');
    expect(second.started).toBe(false);
    // Another kind is another job.
    const judge = await b.runs.start({ kind: 'judge', images: 'describe' }, 'visualization', 'researcher');
    expect(judge.started).toBe(true);

    analysis.release();
    const ended = await first.finished;
    expect(ended.state, ended.message).toBe('done');
    await judge.finished;
    const seenFromB = await b.runs.status('visualization');
    expect(seenFromB.analysis).toEqual({ studyId: 'visualization', kind: 'analysis', state: 'done', done: 1, total: 1, message: ended.message });
    expect(seenFromB.judge!.state).toBe('done');
    // Once it ended, a new run may start anywhere.
    const again = await b.runs.start({ kind: 'analysis' }, 'visualization', 'researcher');
    expect(again.started).toBe(true);
    await again.finished;
    expect((await a.store.audit.list({ studyId: 'visualization' })).filter((e) => e.action === 'analysis_run')).toHaveLength(2);
  });

  it('a run whose node died is marked failed (abandoned) after the stale time, and the dashboard is told', async () => {
    const target = await createTestStoreTarget(engine, 'runs abandoned');
    const clock = { now: 1_000_000 };
    const survivor = await nodeRuns(engine, target, 'node-s', 's1', () => clock.now);
    // What a node that then died left behind: its claimed, running job row.
    expect(await survivor.store.adminJobs.claim({ id: 'dead-job', kind: 'judge', studyId: 'visualization', actor: 'r', owner: { node: 'node-d', incarnation: 'd1' }, now: clock.now, message: 'starting' })).toBe(true);
    expect(await survivor.runs.markAbandoned()).toBe(0);
    expect((await survivor.runs.start({ kind: 'judge', images: 'describe' }, 'visualization', 'r')).started).toBe(false);

    clock.now += 1_001;
    expect(await survivor.runs.markAbandoned()).toBe(1);
    const status = (await survivor.runs.status('visualization')).judge!;
    expect(status).toMatchObject({ state: 'failed', message: expect.stringMatching(/abandoned/) });
    expect(survivor.emitted).toContainEqual(status);
  });

  it('a node restarting under the same name marks its earlier process’s running jobs at once', async () => {
    const target = await createTestStoreTarget(engine, 'runs restart');
    const store = await openStore(target);
    open.push(store);
    await store.adminJobs.claim({ id: 'before-restart', kind: 'analysis', studyId: 'visualization', actor: 'r', owner: { node: 'node-k', incarnation: 'k1' }, now: Date.now(), message: 'starting' });
    await store.close();
    open.pop();
    const restarted = await nodeRuns(engine, target, 'node-k', 'k2');
    // The constructor's first sweep runs at once; the job is fresh, so only the incarnation rule applies.
    for (let i = 0; i < 100 && (await restarted.store.adminJobs.get('before-restart'))!.state === 'running'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await restarted.store.adminJobs.get('before-restart')).toMatchObject({ state: 'failed', message: expect.stringMatching(/abandoned/) });
  });
});
